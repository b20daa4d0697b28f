// One privacy request: its facts, review actions, and its timeline from GET /v1/privacy-request/{id}/log
// (each transition and webhook call with HTTP status and duration), polled while the request can still
// change. A paused request shows how long its resume token has left before the request goes to error.
import { Link } from 'wouter';
import { segment } from '../api.ts';
import { Empty, ErrorNotice, Loading, PageHeader, StatusBadge } from '../components.tsx';
import {
  daysLeftText,
  formatDate,
  formatDateTime,
  formatDuration,
  maskedIdentity,
  statusLabel,
} from '../format.ts';
import { useNow, useResource } from '../hooks.ts';
import { useSession } from '../session.tsx';
import type { PrivacyRequest, RequestLogEntry } from '../types.ts';
import { RequestActions } from './request-actions.tsx';
import { policyLabel } from './requests.tsx';

const POLL_MS = 1500;
/** Statuses a request leaves only by an operator's action (or never): no need to poll them fast. */
const SETTLED = new Set(['complete', 'denied', 'canceled', 'error']);

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

interface TimelineLine {
  at: string | undefined;
  title: string;
  detail: string[];
  httpStatus: number | undefined;
  durationMs: number | undefined;
  error: string | undefined;
  kind: 'transition' | 'webhook' | 'other';
}

/** Reads one log entry into a display line, naming only what the entry carries. */
export function timelineLine(entry: RequestLogEntry): TimelineLine {
  const at = text(entry.at) ?? text(entry.time) ?? text(entry.created_at) ?? text(entry.timestamp);
  const webhookKey = text(entry.webhook_key);
  const toStatus = text(entry.to_status) ?? text(entry.status);
  const fromStatus = text(entry.from_status);
  const httpStatus = numberOf(entry.http_status) ?? numberOf(entry.status_code);
  const durationMs = numberOf(entry.duration_ms);
  const error = text(entry.error) ?? text(entry.reason);
  const detail: string[] = [];
  if (webhookKey) {
    const timing = text(entry.timing) ?? text(entry.callback_type);
    const direction = text(entry.direction);
    const host = text(entry.target_host) ?? text(entry.host);
    if (direction) detail.push(direction.replace('_', ' '));
    if (host) detail.push(`to ${host}`);
    const attempt = numberOf(entry.attempt);
    if (attempt && attempt > 1) detail.push(`attempt ${attempt}`);
    const message = text(entry.message);
    if (message) detail.push(message);
    return {
      at,
      title: `${timing ? `${timing.replace(/_/g, '-')} webhook` : 'Webhook'} ${webhookKey}`,
      detail,
      httpStatus,
      durationMs,
      error,
      kind: 'webhook',
    };
  }
  const message = text(entry.message) ?? text(entry.event) ?? text(entry.type) ?? text(entry.kind);
  if (toStatus) {
    if (message && message !== toStatus) detail.push(message);
    return {
      at,
      title: fromStatus ? `${statusLabel(fromStatus)} → ${statusLabel(toStatus)}` : statusLabel(toStatus),
      detail,
      httpStatus,
      durationMs,
      error,
      kind: 'transition',
    };
  }
  return { at, title: message ?? 'event', detail, httpStatus, durationMs, error, kind: 'other' };
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

function Timeline(props: { entries: RequestLogEntry[] }) {
  if (props.entries.length === 0) return <Empty>Nothing logged yet.</Empty>;
  return (
    <ol className="timeline" aria-label="Timeline">
      {props.entries.map((entry, index) => {
        const line = timelineLine(entry);
        const failed = Boolean(line.error) || (line.httpStatus !== undefined && line.httpStatus >= 400);
        return (
          <li key={index} className={`timeline-${line.kind}${failed ? ' timeline-failed' : ''}`}>
            <time dateTime={line.at}>{formatDateTime(line.at)}</time>
            <div className="timeline-body">
              <strong>{line.title}</strong>
              {line.detail.length ? <span className="hint"> {line.detail.join(' · ')}</span> : null}
              <span className="timeline-metrics">
                {line.httpStatus !== undefined ? (
                  <span className={`http-status${line.httpStatus >= 400 ? ' bad' : ''}`}>
                    HTTP {line.httpStatus}
                  </span>
                ) : null}
                {line.durationMs !== undefined ? <span>{formatDuration(line.durationMs)}</span> : null}
              </span>
              {line.error ? <p className="timeline-error">{line.error}</p> : null}
            </div>
          </li>
        );
      })}
    </ol>
  );
}

export function RequestDetailPage(props: { id: string }) {
  const { api, info } = useSession();
  const path = `/v1/privacy-request/${segment(props.id)}`;
  const request = useResource(
    () => api.get<PrivacyRequest>(path),
    path,
    (data) => (data && SETTLED.has(data.status) ? undefined : POLL_MS),
  );
  const settled = request.data ? SETTLED.has(request.data.status) : false;
  const log = useResource(
    () => api.get<RequestLogEntry[] | { items: RequestLogEntry[] }>(`${path}/log`),
    `${path}/log`,
    settled ? undefined : POLL_MS,
  );
  const entries = Array.isArray(log.data) ? log.data : (log.data?.items ?? []);
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
            <dt>Deadline</dt>
            <dd>
              {daysLeftText(data.days_left)} ({formatDate(data.due_date)})
            </dd>
            <dt>Received</dt>
            <dd>{formatDateTime(data.requested_at)}</dd>
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
          </dl>
          {data.status === 'paused' && data.paused_at ? (
            <PausedCountdown
              pausedAt={data.paused_at}
              timeoutSeconds={info.privacy_request_delay_timeout_seconds}
            />
          ) : null}
          <RequestActions request={data} onChanged={request.reload} />
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
