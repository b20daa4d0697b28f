// `lethe request list|show|approve|deny|extend|cancel`: privacy requests for an operator on the host, through the same
// service as /v1/privacy-request (approvals, denials and cancels are made as the operator `--as` names,
// acting-operator.ts, else audited with the actor `client:cli` and logged on the request as by `cli`). Tables never show identities; `show --json` answers what
// GET /v1/privacy-request/{id} answers an operator, identities included.
import { CANCEL_REASON_CODES, cancelPrivacyRequest } from '../privacy-requests/cancel.ts';
import { type Status, STATUSES } from '../privacy-requests/statuses.ts';
import { PrivacyRequestService } from '../privacy-requests/service.ts';
import type { Services } from '../services.ts';
import type { BulkResult } from '../validation/bulk.ts';
import { parseCommandArguments, usageError } from './arguments.ts';
import { actingOperator } from './acting-operator.ts';
import { formatJson, formatTable } from './output.ts';

export const REQUEST_USAGE = `Usage:
  lethe request list [--status STATUS] [--page N] [--size N] [--json]
      list privacy requests, newest first (STATUS: ${STATUSES.join(', ')})
  lethe request show ID [--json]
      one privacy request and its log
  lethe request approve ID [ID ...] [--json]
      approve pending requests
  lethe request deny ID [ID ...] --reason TEXT [--json]
      deny pending requests; the subject is told the reason, whom to complain to and how to appeal
  lethe request extend ID --reason TEXT [--json]
      extend an open request's due date once, as its jurisdiction allows; the subject is told why
  lethe request cancel ID [--reason-code CODE] [--reason TEXT] [--json]
      cancel a request that is unverified, pending, approved, paused or waiting on tasks; once verified
      (or made by an operator) it needs --reason-code ${CANCEL_REASON_CODES.join('|')}: to refuse, deny with a reason
`;

export type RequestCommand =
  | { action: 'list'; status: Status | undefined; page: number; size: number; json: boolean }
  | { action: 'show'; id: string; json: boolean }
  | { action: 'approve'; ids: string[]; json: boolean }
  | { action: 'deny'; ids: string[]; reason: string; json: boolean }
  | { action: 'extend'; id: string; reason: string; json: boolean }
  | {
      action: 'cancel';
      id: string;
      reason: string | undefined;
      reasonCode: string | undefined;
      json: boolean;
    };

function wholeNumber(value: string | undefined, option: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^[1-9]\d{0,6}$/.test(value) || Number(value) > max) {
    throw usageError(REQUEST_USAGE, `--${option} must be a whole number from 1 to ${max}.`);
  }
  return Number(value);
}

export function parseRequestCommand(argv: string[]): RequestCommand {
  const { values, positionals } = parseCommandArguments(
    argv,
    {
      status: { type: 'string' },
      page: { type: 'string' },
      size: { type: 'string' },
      reason: { type: 'string' },
      'reason-code': { type: 'string' },
      json: { type: 'boolean' },
    },
    REQUEST_USAGE,
  );
  const [action, ...ids] = positionals;
  const json = values.json ?? false;
  const onlyFor = (allowed: string[]) => {
    const misplaced = Object.keys(values).find((option) => option !== 'json' && !allowed.includes(option));
    if (misplaced) throw usageError(REQUEST_USAGE, `--${misplaced} is not an option of request ${action}.`);
  };
  const someIds = () => {
    if (ids.length === 0)
      throw usageError(REQUEST_USAGE, `give the id of at least one request to ${action}.`);
    return ids;
  };
  switch (action) {
    case 'list': {
      onlyFor(['status', 'page', 'size']);
      if (ids.length > 0) throw usageError(REQUEST_USAGE, `unexpected argument ${JSON.stringify(ids[0])}.`);
      const status = values.status;
      if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
        throw usageError(REQUEST_USAGE, `--status must be one of ${STATUSES.join(', ')}.`);
      }
      return {
        action,
        status: status as Status | undefined,
        page: wholeNumber(values.page, 'page', 1, 1_000_000),
        size: wholeNumber(values.size, 'size', 50, 1000),
        json,
      };
    }
    case 'show':
      onlyFor([]);
      if (ids.length !== 1 || !ids[0]) throw usageError(REQUEST_USAGE, 'give exactly one request id.');
      return { action, id: ids[0], json };
    case 'approve':
      onlyFor([]);
      return { action, ids: someIds(), json };
    case 'deny':
      onlyFor(['reason']);
      return { action, ids: someIds(), reason: requiredReason(values.reason, action), json };
    case 'extend':
      onlyFor(['reason']);
      if (ids.length !== 1 || !ids[0]) throw usageError(REQUEST_USAGE, 'give exactly one request id.');
      return { action, id: ids[0], reason: requiredReason(values.reason, action), json };
    case 'cancel':
      onlyFor(['reason', 'reason-code']);
      if (ids.length !== 1 || !ids[0]) throw usageError(REQUEST_USAGE, 'give exactly one request id.');
      return { action, id: ids[0], reason: values.reason, reasonCode: values['reason-code'], json };
    default:
      throw usageError(
        REQUEST_USAGE,
        action === undefined ? 'give an action.' : `unknown action ${JSON.stringify(action)}.`,
      );
  }
}

/** The subject is told the reason of a denial or an extension: it must be there, and bounded as the API bounds it. */
function requiredReason(reason: string | undefined, action: string): string {
  const trimmed = reason?.trim() ?? '';
  if (trimmed === '')
    throw usageError(REQUEST_USAGE, `request ${action} needs --reason TEXT (the subject is told it).`);
  if (trimmed.length > 2000) throw usageError(REQUEST_USAGE, '--reason must be at most 2000 characters.');
  return trimmed;
}

function reviewOutput(verb: string, result: BulkResult<{ id: string; status: string }>, json: boolean) {
  if (json) return formatJson(result);
  return formatTable(
    ['id', 'outcome'],
    [
      ...result.succeeded.map((request) => [request.id, `${verb} (${request.status})`]),
      ...result.failed.map((failure) => [String((failure.data as { id?: unknown }).id), failure.message]),
    ],
  );
}

/** Carries out the command; answers what to print and whether every request succeeded. */
export async function runRequestCommand(
  services: Services,
  command: RequestCommand,
  as: string | undefined = undefined,
): Promise<{ output: string; ok: boolean }> {
  const requests = new PrivacyRequestService(services);
  const by = (
    await actingOperator(
      services,
      as,
      command.action === 'list' || command.action === 'show'
        ? 'privacy-request:read'
        : 'privacy-request:review',
    )
  ).change;
  switch (command.action) {
    case 'list': {
      const page = await requests.list({ status: command.status }, command.page, command.size);
      if (command.json) {
        const items = page.items.map(
          ({ identity: _identity, unverified_identity: _unverified, ...request }) => request,
        );
        return { output: formatJson({ ...page, items }), ok: true };
      }
      const table = formatTable(
        ['id', 'status', 'policy', 'requested_at', 'days_left', 'reviewed_by'],
        page.items.map((request) => [
          request.id,
          request.status,
          request.policy.key,
          request.requested_at,
          request.days_left,
          request.reviewed_by,
        ]),
      );
      return { output: `${table}${page.items.length} of ${page.total} (page ${page.page})\n`, ok: true };
    }
    case 'show': {
      const [request, log] = await Promise.all([requests.get(command.id), requests.log(command.id)]);
      if (command.json) return { output: formatJson({ ...request, log }), ok: true };
      const fields = formatTable(
        ['field', 'value'],
        [
          ['id', request.id],
          ['status', request.status],
          ['policy', request.policy.key],
          ['requested_at', request.requested_at],
          ['reviewed_by', request.reviewed_by],
          ['finalized_by', request.finalized_by],
          ['days_left', request.days_left],
        ],
      );
      const entries = formatTable(
        ['at', 'event', 'detail'],
        log.map((entry) => [
          entry.at.toISOString(),
          entry.to_status ? `${entry.from_status ?? '-'} -> ${entry.to_status}` : entry.kind,
          entry.message ?? entry.error ?? [entry.webhook_key, entry.http_status].filter(Boolean).join(' '),
        ]),
      );
      return { output: `${fields}\n${entries}`, ok: true };
    }
    case 'approve': {
      const result = await requests.approve(command.ids, by);
      return { output: reviewOutput('approved', result, command.json), ok: result.failed.length === 0 };
    }
    case 'deny': {
      const result = await requests.deny(command.ids, command.reason, by);
      return { output: reviewOutput('denied', result, command.json), ok: result.failed.length === 0 };
    }
    case 'extend': {
      const extended = await requests.extend(command.id, command.reason, by);
      const { identity: _identity, unverified_identity: _unverified, ...view } = extended;
      return {
        output: command.json ? formatJson(view) : `extended ${extended.id} to ${extended.due_date}\n`,
        ok: true,
      };
    }
    case 'cancel': {
      await cancelPrivacyRequest(
        services,
        command.id,
        command.reason?.trim() || null,
        by,
        command.reasonCode?.trim() || null,
      );
      const canceled = await requests.get(command.id);
      const { identity: _identity, unverified_identity: _unverified, ...view } = canceled;
      return {
        output: command.json ? formatJson(view) : `canceled ${canceled.id} (${canceled.status})\n`,
        ok: true,
      };
    }
  }
}
