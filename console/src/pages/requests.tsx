// Privacy requests, open ones first by soonest deadline, then closed ones (complete, denied, canceled) by
// when they were closed, latest first: status, policy, masked identity, days left (or how long a closed
// one took); filters by status and external id; approve, deny and retry in place. The API lists newest
// first, and deadlines depend on each policy's timeframe, so the page reads the newest FETCH_SIZE matching
// requests, sorts them itself and pages through them; it refreshes every REFRESH_MS. A request in error is
// open: it waits for a retry and its deadline still runs.
import { type FormEvent, useState } from 'react';
import { Link } from 'wouter';
import { answer } from '../api.ts';
import { Empty, ErrorNotice, Field, Loading, PageHeader, Pager, StatusBadge } from '../components.tsx';
import {
  CLOSED_STATUSES,
  closedAt,
  daysLeftText,
  deadlineText,
  formatDate,
  formatDateTime,
  maskedIdentity,
} from '../format.ts';
import { useResource } from '../hooks.ts';
import { useSession } from '../session.tsx';
import type { PrivacyRequest } from '../schema.ts';
import { NewRequestForm } from './new-request.tsx';
import { RequestActions } from './request-actions.tsx';
import { appealDaysLeft } from './request-clock.tsx';

export const STATUSES: PrivacyRequest['status'][] = [
  'identity_unverified',
  'requires_input',
  'pending',
  'approved',
  'denied',
  'in_processing',
  'paused',
  'complete',
  'canceled',
  'error',
];

const FETCH_SIZE = 500;
const PAGE_SIZE = 50;
const REFRESH_MS = 10_000;

/**
 * Open requests first, soonest deadline first (requests without one last; ties: oldest first); then closed
 * requests, the most recently closed first.
 */
/** What a stuck badge says on hover, from the request's stuck_reason (docs/human-steps.md). */
function stuckTitle(reason: string | null | undefined): string {
  if (reason === 'not_acknowledged') return 'The receipt was not confirmed to the subject in the law’s time';
  if (reason === 'stalled') return 'No progress for a while';
  if (reason === 'task_overdue') return 'A manual task is overdue';
  return 'No progress for a while, or an overdue task';
}

export function byDeadline(a: PrivacyRequest, b: PrivacyRequest): number {
  // A denial under appeal runs on the appeal's own deadline (docs/deadlines.md).
  const closed = (request: PrivacyRequest) =>
    CLOSED_STATUSES.has(request.status) && appealDaysLeft(request) === undefined;
  const closedA = closed(a);
  const closedB = closed(b);
  if (closedA !== closedB) return closedA ? 1 : -1;
  if (closedA) return (closedAt(b) ?? b.requested_at).localeCompare(closedAt(a) ?? a.requested_at);
  const left = (request: PrivacyRequest) =>
    appealDaysLeft(request) ?? request.days_left ?? Number.POSITIVE_INFINITY;
  return left(a) - left(b) || a.requested_at.localeCompare(b.requested_at);
}

export function policyLabel(request: PrivacyRequest): string {
  return request.policy?.key ?? request.policy?.name ?? request.policy_id;
}

export function RequestsPage() {
  const { api } = useSession();
  const [status, setStatus] = useState<PrivacyRequest['status'] | ''>('');
  const [externalIdDraft, setExternalIdDraft] = useState('');
  const [externalId, setExternalId] = useState('');
  const [stuckOnly, setStuckOnly] = useState(false);
  const [page, setPage] = useState(1);
  const requests = useResource(
    () =>
      answer(
        api.GET('/v1/privacy-request', {
          params: {
            query: {
              status: status || undefined,
              external_id: externalId || undefined,
              stuck: stuckOnly || undefined,
              size: FETCH_SIZE,
            },
          },
        }),
      ),
    JSON.stringify([status, externalId, stuckOnly]),
    REFRESH_MS,
  );

  function applyExternalId(event: FormEvent) {
    event.preventDefault();
    setPage(1);
    setExternalId(externalIdDraft.trim());
  }

  const sorted = [...(requests.data?.items ?? [])].sort(byDeadline);
  const items = sorted.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  const total = requests.data?.total ?? 0;
  const filtered = Boolean(status || externalId || stuckOnly);
  return (
    <>
      <PageHeader title="Privacy requests">
        <button type="button" onClick={() => void requests.reload()}>
          Refresh
        </button>
      </PageHeader>
      <NewRequestForm onCreated={requests.reload} />
      <form className="filters" onSubmit={applyExternalId} aria-label="Filter privacy requests">
        <Field label="Status">
          {(id) => (
            <select
              id={id}
              value={status}
              onChange={(event) => {
                setPage(1);
                setStatus(event.target.value as PrivacyRequest['status'] | '');
              }}
            >
              <option value="">any</option>
              {STATUSES.map((name) => (
                <option key={name} value={name}>
                  {name.replace(/_/g, ' ')}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="External id">
          {(id) => (
            <input
              id={id}
              value={externalIdDraft}
              onChange={(event) => setExternalIdDraft(event.target.value)}
            />
          )}
        </Field>
        <div className="field">
          <label>
            <input
              type="checkbox"
              checked={stuckOnly}
              onChange={(event) => {
                setPage(1);
                setStuckOnly(event.target.checked);
              }}
            />{' '}
            Stuck only
          </label>
        </div>
        <div className="filter-buttons">
          <button type="submit" className="primary">
            Filter
          </button>
        </div>
      </form>
      <ErrorNotice message={requests.error} />
      {requests.loading && !requests.data ? (
        <Loading what="privacy requests" />
      ) : requests.data && items.length === 0 ? (
        <Empty>
          {filtered
            ? 'No request matches these filters.'
            : 'No privacy request yet. Requests arrive through POST /v1/privacy-request.'}
        </Empty>
      ) : requests.data ? (
        <>
          <table className="responsive requests">
            <caption className="visually-hidden">
              Privacy requests: open ones first, soonest deadline first; then closed ones, latest first
            </caption>
            <thead>
              <tr>
                <th scope="col">Deadline</th>
                <th scope="col">Status</th>
                <th scope="col">Policy</th>
                <th scope="col">Identity</th>
                <th scope="col">Request</th>
                <th scope="col">Received</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((request) => (
                <tr key={request.id} data-request-id={request.id}>
                  <td data-label="Deadline">
                    {appealDaysLeft(request) !== undefined ? (
                      <span className="appeal-deadline">
                        appeal: {daysLeftText(appealDaysLeft(request))}
                        <small className="hint"> {formatDate(request.appeal?.due_date ?? '')}</small>
                      </span>
                    ) : CLOSED_STATUSES.has(request.status) ? (
                      <span className="closed">{deadlineText(request)}</span>
                    ) : (
                      <>
                        <span
                          className={
                            request.days_left !== null && request.days_left < 7 ? 'urgent' : undefined
                          }
                        >
                          {deadlineText(request)}
                        </span>
                        <small className="hint"> {formatDate(request.due_date)}</small>
                      </>
                    )}
                  </td>
                  <td data-label="Status">
                    <StatusBadge status={request.status} />
                    {request.stuck ? (
                      <span className="badge stuck" title={stuckTitle(request.stuck_reason)}>
                        {request.stuck_reason === 'not_acknowledged' ? 'not acknowledged' : 'stuck'}
                      </span>
                    ) : null}
                  </td>
                  <td data-label="Policy">{policyLabel(request)}</td>
                  <td data-label="Identity">{maskedIdentity(request.identity) || '—'}</td>
                  <td data-label="Request">
                    <Link href={`/requests/${encodeURIComponent(request.id)}`}>
                      {request.external_id || request.id}
                    </Link>
                  </td>
                  <td data-label="Received">{formatDateTime(request.requested_at)}</td>
                  <td data-label="Actions">
                    <RequestActions request={request} onChanged={requests.reload} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} size={PAGE_SIZE} total={sorted.length} onPage={setPage} />
          {total > sorted.length ? (
            <p className="hint" role="note">
              Showing the {sorted.length} most recent of {total} matching requests, by deadline. Filter by
              status or external id to see older ones.
            </p>
          ) : null}
        </>
      ) : null}
    </>
  );
}
