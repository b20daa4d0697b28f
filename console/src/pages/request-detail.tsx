// One privacy request: its facts, review actions, and its timeline from GET /v1/privacy-request/{id}/log
// (each transition and webhook call, dated, with HTTP status and duration), polled while the request can
// still change. A closed request says how long it took instead of counting down its deadline. A paused request shows how long its resume token has left before the request goes to error.
// Identities given on the public page and never proved are listed apart, marked "unverified".
import { useEffect } from 'react';
import { Link } from 'wouter';
import { answer } from '../api.ts';
import { Empty, ErrorNotice, Loading, PageHeader, StatusBadge } from '../components.tsx';
import {
  closedText,
  daysLeftText,
  formatClockTime,
  formatDate,
  formatDateTime,
  formatDuration,
  maskedIdentity,
  statusLabel,
} from '../format.ts';
import { useAction, useNow, useResource } from '../hooks.ts';
import { useSession } from '../session.tsx';
import type { RequestLogEntry } from '../schema.ts';
import { RequestActions } from './request-actions.tsx';
import { ClockActions, ClockFacts } from './request-clock.tsx';
import { RequestWaysIn } from './request-ways-in.tsx';
import { policyLabel } from './requests.tsx';

const POLL_MS = 1500;
/** Statuses a request leaves only by an operator's action (or never): no need to poll them fast. */
const SETTLED = new Set(['complete', 'denied', 'canceled', 'error']);

const TIMING_LABELS: Record<string, string> = {
  pre_approval: 'Pre-approval webhook',
  pre: 'Pre-execution webhook',
  post: 'Post-execution webhook',
};

function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}

function total<T>(items: T[], count: (item: T) => unknown): number {
  return items.reduce((sum, item) => sum + (Number(count(item)) || 0), 0);
}

/** "access: 1 entity, 2 attributes, 0 files" and "erasure: 3 attributes masked, …" from a rules summary. */
export function describeRulesSummary(details: unknown): string[] {
  if (!details || typeof details !== 'object') return [];
  const summary = details as { access?: unknown; erasure?: unknown };
  const lines: string[] = [];
  if (Array.isArray(summary.access) && summary.access.length > 0) {
    const perDatastore = summary.access.flatMap((item: { datastores?: unknown }) =>
      Array.isArray(item.datastores) ? (item.datastores as Record<string, unknown>[]) : [],
    );
    lines.push(
      `access: ${plural(
        total(perDatastore, (item) => item.entities),
        'entity',
        'entities',
      )}, ` +
        `${plural(
          total(perDatastore, (item) => item.attributes),
          'attribute',
        )}, ` +
        `${plural(
          total(perDatastore, (item) => item.files),
          'file',
        )}`,
    );
  }
  if (Array.isArray(summary.erasure) && summary.erasure.length > 0) {
    const items = summary.erasure as Record<string, unknown>[];
    lines.push(
      `erasure: ${total(items, (item) => item.attributes_masked)} attributes masked, ` +
        `${total(items, (item) => item.attributes_deleted)} deleted, ` +
        `${total(items, (item) => item.files_deleted)} files deleted, ` +
        `${total(items, (item) => item.entities_forgotten)} entities forgotten`,
    );
  }
  return lines;
}

interface TimelineLine {
  title: string;
  detail: string[];
}

/** The words of one log entry: what happened (title) and its particulars (detail). */
export function describeLogEntry(entry: RequestLogEntry): TimelineLine {
  const detail: string[] = [];
  switch (entry.kind) {
    case 'webhook': {
      if (entry.direction) detail.push(entry.direction.replace('_', ' '));
      if (entry.target_host) detail.push(`to ${entry.target_host}`);
      if (entry.attempt && entry.attempt > 1) detail.push(`attempt ${entry.attempt}`);
      if (entry.message) detail.push(entry.message);
      const timing = entry.timing ? TIMING_LABELS[entry.timing] : undefined;
      return { title: `${timing ?? 'Webhook'} ${entry.webhook_key ?? ''}`.trim(), detail };
    }
    case 'transition': {
      if (entry.message) detail.push(entry.message);
      const to = entry.to_status ? statusLabel(entry.to_status) : '?';
      return { title: entry.from_status ? `${statusLabel(entry.from_status)} → ${to}` : to, detail };
    }
    case 'rules': {
      const summary = describeRulesSummary(entry.details);
      if (summary.length) detail.push(...summary);
      else if (entry.message) detail.push(entry.message);
      return { title: 'Policy rules', detail };
    }
    default:
      return { title: entry.message ?? entry.kind, detail };
  }
}

function PausedCountdown(props: { pausedAt: string; timeoutSeconds: number }) {
  const now = useNow();
  const expiresAt = new Date(props.pausedAt).getTime() + props.timeoutSeconds * 1000;
  const left = expiresAt - now;
  return (
    <p className="notice paused-notice" role="status">
      Paused by a two-way webhook, waiting for its resume call.{' '}
      {left > 0 ? (
        <>
          Expires in <strong>{formatDuration(left)}</strong> (
          {formatDateTime(new Date(expiresAt).toISOString())}); then the request goes to error and must be
          resubmitted.
        </>
      ) : (
        <>The resume window has passed; the request is about to go to error.</>
      )}
    </p>
  );
}

/** Fetches the access package with the session's token and hands it to the browser as a file download. */
function AccessPackageButton(props: { id: string }) {
  const { api } = useSession();
  const download = useAction();
  return (
    <div className="access-package">
      <button
        type="button"
        disabled={download.pending}
        onClick={() =>
          void download.run(async () => {
            const results = await answer(
              api.GET('/v1/privacy-request/{id}/access-results', { params: { path: { id: props.id } } }),
            );
            const url = URL.createObjectURL(
              new Blob([JSON.stringify(results, null, 2)], { type: 'application/json' }),
            );
            const link = document.createElement('a');
            link.href = url;
            link.download = `${props.id}-access-package.json`;
            link.click();
            setTimeout(() => URL.revokeObjectURL(url), 10_000);
          })
        }
      >
        Download the access package (JSON)
      </button>
      <ErrorNotice message={download.error} />
    </div>
  );
}

function Timeline(props: { entries: RequestLogEntry[] }) {
  if (props.entries.length === 0) return <Empty>Nothing logged yet.</Empty>;
  return (
    <ol className="timeline" aria-label="Timeline">
      {props.entries.map((entry, index) => {
        const line = describeLogEntry(entry);
        const httpStatus = entry.http_status;
        const failed = Boolean(entry.error) || (httpStatus !== null && httpStatus >= 400);
        return (
          <li key={index} className={`timeline-${entry.kind}${failed ? ' timeline-failed' : ''}`}>
            <time dateTime={entry.time} title={formatDateTime(entry.time)}>
              <span className="timeline-date">{formatDate(entry.time)}</span>{' '}
              <span className="timeline-clock">{formatClockTime(entry.time)}</span>
            </time>
            <div className="timeline-body">
              <strong>{line.title}</strong>
              {line.detail.length ? <span className="hint"> {line.detail.join(' · ')}</span> : null}
              <span className="timeline-metrics">
                {httpStatus !== null ? (
                  <span className={`http-status${httpStatus >= 400 ? ' bad' : ''}`}>HTTP {httpStatus}</span>
                ) : null}
                {entry.duration_ms !== null ? <span>{formatDuration(entry.duration_ms)}</span> : null}
              </span>
              {entry.error ? <p className="timeline-error">{entry.error}</p> : null}
            </div>
          </li>
        );
      })}
    </ol>
  );
}

export function RequestDetailPage(props: { id: string }) {
  const { api, info } = useSession();
  const byId = { params: { path: { id: props.id } } };
  const request = useResource(
    () => answer(api.GET('/v1/privacy-request/{id}', byId)),
    props.id,
    (data) => (data && SETTLED.has(data.status) ? undefined : POLL_MS),
  );
  const settled = request.data ? SETTLED.has(request.data.status) : false;
  const log = useResource(
    () => answer(api.GET('/v1/privacy-request/{id}/log', byId)),
    `${props.id}/log`,
    settled ? undefined : POLL_MS,
  );
  const reloadLog = log.reload;
  const status = request.data?.status;
  const finishedAt = request.data?.finished_processing_at;
  useEffect(() => {
    // The log's last poll can come before the request's last transition: read it once more on settling.
    // A retry can also take a request from one settled status to another (error to complete) between two
    // reads of it, so a new status or end of processing reads it again too.
    if (settled) void reloadLog();
  }, [settled, status, finishedAt, reloadLog]);
  const entries = log.data ?? [];
  const data = request.data;

  return (
    <>
      <PageHeader title={`Privacy request ${data?.external_id || props.id}`}>
        <Link href="/requests">All requests</Link>
      </PageHeader>
      <ErrorNotice message={request.error} />
      {request.loading && !data ? <Loading what="the request" /> : null}
      {data ? (
        <>
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              <StatusBadge status={data.status} />
              {!settled ? (
                <small className="hint live" aria-hidden="true">
                  {' '}
                  live
                </small>
              ) : null}
            </dd>
            <dt>Id</dt>
            <dd>
              <code>{data.id}</code>
            </dd>
            <dt>Policy</dt>
            <dd>{policyLabel(data)}</dd>
            <dt>Identity</dt>
            <dd>{maskedIdentity(data.identity) || '—'}</dd>
            {maskedIdentity(data.unverified_identity) ? (
              <>
                <dt>Unverified identity</dt>
                <dd className="unverified-identity">
                  <span className="badge unverified">unverified</span>{' '}
                  {maskedIdentity(data.unverified_identity)}{' '}
                  <small className="hint">
                    given on the public page and not proved: never matched, sent to webhooks apart
                  </small>
                </dd>
              </>
            ) : null}
            <dt>{closedText(data) ? 'Took' : 'Deadline'}</dt>
            <dd>
              {closedText(data) ?? daysLeftText(data.days_left)} (due {formatDate(data.due_date)})
            </dd>
            <dt>Received</dt>
            <dd>{formatDateTime(data.requested_at)}</dd>
            <ClockFacts request={data} />
            {data.reviewed_at ? (
              <>
                <dt>Reviewed</dt>
                <dd>
                  {formatDateTime(data.reviewed_at)}
                  {data.reviewed_by ? ` by ${data.reviewed_by}` : ''}
                </dd>
              </>
            ) : null}
            {data.finished_processing_at ? (
              <>
                <dt>Finished</dt>
                <dd>{formatDateTime(data.finished_processing_at)}</dd>
              </>
            ) : null}
            {data.identity_verified_at ? (
              <>
                <dt>Identity verified</dt>
                <dd>{formatDateTime(data.identity_verified_at)}</dd>
              </>
            ) : null}
            {data.canceled_at ? (
              <>
                <dt>Canceled</dt>
                <dd>
                  {formatDateTime(data.canceled_at)}
                  {data.cancel_reason_code ? ` (${data.cancel_reason_code.replaceAll('_', ' ')})` : ''}
                  {data.cancel_reason ? `: ${data.cancel_reason}` : ''}
                </dd>
              </>
            ) : null}
          </dl>
          <RequestWaysIn request={data} onChanged={request.reload} />
          {data.status === 'paused' && data.paused_at ? (
            <PausedCountdown
              pausedAt={data.paused_at}
              timeoutSeconds={info.privacy_request_delay_timeout_seconds}
            />
          ) : null}
          <RequestActions request={data} onChanged={request.reload} />
          <ClockActions request={data} onChanged={request.reload} />
          {data.status === 'complete' && data.policy?.rules?.some((rule) => rule.action_type === 'access') ? (
            <AccessPackageButton id={data.id} />
          ) : null}
          <section aria-labelledby="timeline-heading">
            <h2 id="timeline-heading">Timeline</h2>
            <ErrorNotice message={log.error} />
            {log.loading && !log.data ? <Loading what="the timeline" /> : <Timeline entries={entries} />}
          </section>
        </>
      ) : null}
    </>
  );
}
