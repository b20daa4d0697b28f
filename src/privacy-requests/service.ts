// The privacy-request lifecycle as the API drives it: receipt (with automatic approval or pre-approval),
// approve, deny, retry and the reads (the reply-to calls are in reply-service.ts). Every
// transition is a compare-and-set on the status inside one transaction that also writes the log and
// queues the work; nothing here calls a webhook (workers do, src/privacy-requests/engine/executor.ts). It never
// logs an identity nor puts one in an error message.
import { randomUUID } from 'node:crypto';
import { fromRegistry } from '../actions/registry.ts';
import { type ChangeActor, recordChange } from '../audit/audit-log.ts';
import { principalName } from '../auth/scopes.ts';
import type { Queryable } from '../db/database.ts';
import { readLocation, unknownLocationMessage } from '../deadlines/locations.ts';
import { badRequest, invalid, notFound } from '../errors.ts';
import { policyRepository } from '../policies/repository.ts';
import type { Services } from '../services.ts';
import { type BulkResult, echoFields, itemValidator } from '../validation/bulk.ts';
import { pageOf } from '../validation/page.ts';
import { type AccessPackage, readAccessPackage } from './rules/access-package.ts';
import { approveRequest } from './approval.ts';
import { type AppealRow, appealRepository } from './appeal-repository.ts';
import { decideAppeal, noticeDenial } from './appeals.ts';
import { clockRepository } from './clock-repository.ts';
import { extendRequest } from './extension.ts';
import { admit, prepareRequest, receive } from './intake.ts';
import {
  type Identity,
  identityProblem,
  openIdentity,
  openUnverifiedIdentity,
  sealIdentity,
} from './identity.ts';
import { enqueueAdvance } from './jobs.ts';
import { givenByOperator } from './trusted-identity.ts';
import { type LogRow, logRepository } from './log-repository.ts';
import { stuckRepository } from './stuck-repository.ts';
import {
  type ListFilter,
  type NewRequest,
  privacyRequestRepository as repo,
  type RequestRow,
} from './repository.ts';
import type { Status } from './statuses.ts';
import { hooksOf } from './lifecycle.ts';
import { PRIVACY_REQUEST_FIELDS, privacyRequestItem } from './schemas.ts';
import {
  loadPolicyEmbed,
  loadPolicyEmbeds,
  type PolicyEmbed,
  type PrivacyRequestView,
  type ClockView,
  toClockView,
  toPrivacyRequestView,
} from './view.ts';

export type PrivacyRequestWithIdentity = PrivacyRequestView &
  ClockView & {
    identity: Identity;
    unverified_identity: Identity;
    appeal: AppealView | null;
    /** Read and listed requests say whether they are stuck (docs/human-steps.md). */
    stuck?: boolean;
    /** Why it is stuck (stuck-repository.ts): not_acknowledged, stalled, task_overdue; null when it is not. */
    stuck_reason?: string | null;
  };

/** The appeal of a denied request, as operators see it (null: none was opened). */
export interface AppealView {
  status: AppealRow['status'];
  window_ends_at: string;
  submitted_at: string | null;
  due_date: string | null;
  statement: string | null;
  decided_at: string | null;
  decided_by: string | null;
  decision_reason: string | null;
}

function toAppealView(appeal: AppealRow | undefined): AppealView | null {
  if (!appeal) return null;
  const iso = (at: Date | null) => (at === null ? null : at.toISOString());
  return {
    status: appeal.status,
    window_ends_at: appeal.window_ends_at.toISOString(),
    submitted_at: iso(appeal.submitted_at),
    due_date: iso(appeal.due_at),
    statement: appeal.statement,
    decided_at: iso(appeal.decided_at),
    decided_by: appeal.decided_by,
    decision_reason: appeal.decision_reason,
  };
}

/** An item that passed the schema: its own fields, and the action types' inputs and features' fields by name. */
type RequestItem = Record<string, unknown> & {
  identity: Identity;
  policy_key: string;
  external_id?: string;
  source?: string;
  location?: string;
  custom_fields?: unknown[];
};

const checkItem = fromRegistry(() => itemValidator(privacyRequestItem()));

/** Ids named in one creation's audit entry; a larger batch records its count and the first ids. */
const MAX_IDS_AUDITED = 100;
/** The identity first (identity.ts's sentences name the identity field), then the rest of the item. */
function checkRequestItem(item: unknown): ReturnType<ReturnType<typeof checkItem>> {
  const identity = (item as { identity?: unknown } | null)?.identity;
  if (typeof identity === 'object' && identity !== null && !Array.isArray(identity)) {
    const problem = identityProblem(identity as Record<string, unknown>);
    if (problem) return { ok: false, message: problem };
  }
  return checkItem()(item);
}

export class PrivacyRequestService {
  readonly #services: Services;

  constructor(services: Services) {
    this.#services = services;
  }

  get #db() {
    return this.#services.db;
  }

  /**
   * Receives a batch: each item is checked on its own (a failing item is reported and the others are still
   * received), then every accepted request is stored, logged, planned and queued in one transaction. An
   * unknown `location` refuses the whole batch with 422 naming it (issue 26): a request's deadline hangs
   * on it, so a typo must not become a request on the wrong clock, nor a silent failed item.
   */
  async create(items: readonly unknown[], by: ChangeActor): Promise<BulkResult<PrivacyRequestWithIdentity>> {
    const result: BulkResult<PrivacyRequestWithIdentity> = { succeeded: [], failed: [] };
    const checked = items.map((item) => ({ item, checked: checkRequestItem(item) }));
    checked.forEach(({ checked: c }, index) => {
      if (c.ok && c.value.location !== undefined && !readLocation(c.value.location).known)
        throw invalid(`Item ${index}: ${unknownLocationMessage(c.value.location)}`);
    });
    const policyIds = await policyRepository.idsByKey(
      this.#db,
      checked.flatMap(({ checked: c }) => (c.ok ? [c.value.policy_key] : [])),
    );
    const rulesOfPolicies = await policyRepository.rulesOf(this.#db, [...policyIds.values()]);
    const receipts = hooksOf('receipt');
    const accepted: NewRequest[] = [];
    const given = new Map<string, Record<string, unknown>>();
    for (const { item, checked: c } of checked) {
      const fail = (message: string) =>
        result.failed.push({ message, data: echoFields(item, PRIVACY_REQUEST_FIELDS) });
      if (!c.ok) {
        fail(c.message);
        continue;
      }
      const request = c.value as RequestItem;
      const policyId = policyIds.get(request.policy_key);
      if (!policyId) {
        fail(`No policy with key ${request.policy_key}.`);
        continue;
      }
      const id = `pri_${randomUUID()}`;
      const submittedBy = receipts.find((receipt) => request[receipt.field] !== undefined)?.submittedBy;
      const prepared = await prepareRequest(
        this.#db,
        this.#services.keyring,
        {
          id: policyId,
          key: request.policy_key,
          rules: rulesOfPolicies.filter((rule) => rule.policy_id === policyId),
        },
        request,
        {
          ...(submittedBy && { submittedBy }),
          id,
          externalId: request.external_id ?? null,
          source: request.source ?? null,
          location: request.location ?? null,
          customFields: request.custom_fields ?? [],
          identitySealed: sealIdentity(this.#services.keyring, id, givenByOperator(request.identity)),
        },
      );
      if ('refused' in prepared) {
        fail(prepared.refused.message);
        continue;
      }
      accepted.push(prepared);
      given.set(id, request);
    }
    if (accepted.length === 0) return result;

    const rows = await this.#db.transaction(async (tx) => {
      const stored = await receive(
        tx,
        this.#services,
        {
          way: 'operator_api',
          clientId: principalName(by.principal),
          status: 'pending',
          message: 'request received',
        },
        accepted,
      );
      await recordChange(tx, by, 'privacy-request.create', {
        count: stored.length,
        privacy_request_ids: stored.slice(0, MAX_IDS_AUDITED).map((row) => row.id),
      });
      for (const row of stored) {
        for (const receipt of receipts) {
          const value = given.get(row.id)?.[receipt.field];
          if (value !== undefined) await receipt.received(tx, this.#services, { row, value, by });
        }
      }
      await admit(tx, this.#services, stored);
      // As admitted: a duplicate is canceled, an excessive request flagged (duplicates.ts).
      return clockRepository.current(
        tx,
        stored.map((row) => row.id),
      );
    });
    const policies = await loadPolicyEmbeds(
      this.#db,
      rows.map((row) => row.policy_id),
    );
    result.succeeded.push(...rows.map((row) => this.#withIdentity(row, policies, new Map())));
    return result;
  }

  async list(filter: ListFilter, page: number, size: number) {
    const [rows, total] = await Promise.all([
      repo.page(this.#db, filter, size, (page - 1) * size),
      repo.count(this.#db, filter),
    ]);
    const [policies, appeals, stuck] = await Promise.all([
      loadPolicyEmbeds(
        this.#db,
        rows.map((row) => row.policy_id),
      ),
      appealRepository.ofRequests(
        this.#db,
        rows.map((row) => row.id),
      ),
      stuckRepository.stuckAmong(
        this.#db,
        rows.map((row) => row.id),
        this.#services.config.stuckAfterSeconds,
      ),
    ]);
    return pageOf(
      rows.map((row) => ({
        ...this.#withIdentity(row, policies, appeals),
        stuck: stuck.has(row.id),
        stuck_reason: stuck.get(row.id) ?? null,
      })),
      total,
      page,
      size,
    );
  }

  async get(id: string): Promise<PrivacyRequestWithIdentity> {
    const row = await this.#find(id);
    const stuck = await stuckRepository.stuckAmong(this.#db, [id], this.#services.config.stuckAfterSeconds);
    return {
      ...this.#withIdentity(
        row,
        await loadPolicyEmbeds(this.#db, [row.policy_id]),
        await appealRepository.ofRequests(this.#db, [row.id]),
      ),
      stuck: stuck.has(id),
      stuck_reason: stuck.get(id) ?? null,
    };
  }

  /** The request without its identities: what a reply-to-token holder may see. */
  async view(id: string): Promise<PrivacyRequestView> {
    const row = await this.#find(id);
    return toPrivacyRequestView(row, await loadPolicyEmbed(this.#db, row.policy_id));
  }

  async log(id: string): Promise<LogRow[]> {
    await this.#find(id);
    return logRepository.log(this.#db, id);
  }

  async accessResults(id: string): Promise<AccessPackage> {
    const row = await this.#find(id);
    if (row.status !== 'complete')
      throw badRequest(`Access results exist once the request is complete; it is ${row.status}.`);
    const results = await readAccessPackage(this.#services, id);
    if (results === null) throw notFound(`Request ${id} has no access package.`);
    return results;
  }

  async approve(ids: readonly string[], by: ChangeActor): Promise<BulkResult<PrivacyRequestWithIdentity>> {
    const name = principalName(by.principal);
    return this.#review(ids, async (tx, row) => {
      if (row.status !== 'pending') return illegal('approve', row.status);
      await approveRequest(this.#services.queue, tx, row, name, `approved by ${name}`);
      await recordChange(tx, by, 'privacy-request.approve', { privacy_request_id: row.id });
      return undefined;
    });
  }

  /** A reasoned refusal (GDPR art. 12(4)): the subject is told why, whom to complain to and how to appeal. */
  async deny(
    ids: readonly string[],
    reason: string,
    by: ChangeActor,
  ): Promise<BulkResult<PrivacyRequestWithIdentity>> {
    const name = principalName(by.principal);
    return this.#review(ids, async (tx, row) => {
      if (row.status !== 'pending') return illegal('deny', row.status);
      const now = new Date();
      // The reason is free text and may name the subject: the request's own log keeps it, the audit does not.
      await repo.transition(tx, {
        id: row.id,
        from: 'pending',
        to: 'denied',
        changes: {
          reviewed_at: now,
          reviewed_by: name,
          finalized_at: now,
          finalized_by: name,
          denial_reason: reason,
        },
        message: `denied by ${name}: ${reason}`,
      });
      await recordChange(tx, by, 'privacy-request.deny', { privacy_request_id: row.id, reason_given: true });
      await noticeDenial(tx, this.#services, row, reason, by, now);
      return undefined;
    });
  }

  /** The one extension of a request's due date, with the reason the subject is told. */
  async extend(id: string, reason: string, by: ChangeActor): Promise<PrivacyRequestWithIdentity> {
    await extendRequest(this.#services, id, reason, by);
    return this.get(id);
  }

  async decideAppeal(
    id: string,
    decision: { outcome: 'upheld' | 'reversed'; reason: string },
    by: ChangeActor,
  ): Promise<PrivacyRequestWithIdentity> {
    await decideAppeal(this.#services, id, decision, by);
    return this.get(id);
  }

  /** From `error` only: the request continues at the step that failed (or was awaiting resume). */
  async retry(id: string, by: ChangeActor): Promise<PrivacyRequestWithIdentity> {
    await this.#db.transaction(async (tx) => {
      const row = await repo.lock(tx, id);
      if (!row) throw notFound(`No privacy request with id ${id}.`);
      if (row.status !== 'error') throw badRequest(illegal('retry', row.status));
      if (row.identity_sealed === null)
        throw badRequest(`The identities of request ${id} have expired and were purged; resubmit it.`);
      await repo.transition(tx, {
        id,
        from: 'error',
        to: 'in_processing',
        changes: { error_reason: null, finished_processing_at: null },
        message: `retried by ${principalName(by.principal)}`,
      });
      await recordChange(tx, by, 'privacy-request.retry', { privacy_request_id: id });
      await enqueueAdvance(this.#services.queue, tx, id);
    });
    return this.get(id);
  }

  /**
   * Each id on its own: `act` answers a refusal message, or undefined once it has changed the request.
   * When nothing succeeded the call changed nothing: not_found if no id exists, else bad_request.
   */
  async #review(
    ids: readonly string[],
    act: (tx: Queryable, row: RequestRow) => Promise<string | undefined>,
  ): Promise<BulkResult<PrivacyRequestWithIdentity>> {
    const result: BulkResult<PrivacyRequestWithIdentity> = { succeeded: [], failed: [] };
    let missing = 0;
    for (const id of new Set(ids)) {
      const refusal = await this.#db.transaction(async (tx) => {
        const row = await repo.lock(tx, id);
        if (!row) {
          missing++;
          return `No privacy request with id ${id}.`;
        }
        return act(tx, row);
      });
      if (refusal) result.failed.push({ message: refusal, data: { id } });
      else result.succeeded.push(await this.get(id));
    }
    if (result.succeeded.length > 0) return result;
    const messages = result.failed.map((failure) => failure.message);
    if (missing === result.failed.length) throw notFound(messages.join(' '));
    throw badRequest(messages.join('; '));
  }

  async #find(id: string): Promise<RequestRow> {
    const row = await repo.find(this.#db, id);
    if (!row) throw notFound(`No privacy request with id ${id}.`);
    return row;
  }

  #withIdentity(
    row: RequestRow,
    policies: Map<string, PolicyEmbed>,
    appeals: Map<string, AppealRow>,
  ): PrivacyRequestWithIdentity {
    const policy = policies.get(row.policy_id);
    if (!policy) throw new Error(`policy ${row.policy_id} of request ${row.id} is missing`);
    const view = toPrivacyRequestView(row, policy);
    const identity = row.identity_sealed
      ? openIdentity(this.#services.keyring, row.id, row.identity_sealed)
      : {};
    const unverified = openUnverifiedIdentity(this.#services.keyring, row.id, row.unverified_identity_sealed);
    return {
      ...view,
      ...toClockView(row),
      identity,
      unverified_identity: unverified,
      appeal: toAppealView(appeals.get(row.id)),
    };
  }
}

/** The sentence of an illegal transition; it names the action (hence the target state) and the current one. */
function illegal(verb: string, status: Status): string {
  return `cannot ${verb} a request in status ${status}`;
}
