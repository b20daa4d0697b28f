// The law's clock on a request's page (docs/deadlines.md): its jurisdiction, acknowledgement, extension,
// denial reason, duplicate and excess flags and appeal; and the actions that need a reason the subject is
// told: Extend… (once, while open and before the due date) and the decision of a pending appeal. Each
// reason is typed in a modal dialog; the API's own sentence is shown when it refuses.
import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { answer } from '../api.ts';
import { ErrorNotice, Field } from '../components.tsx';
import { formatDate, formatDateTime } from '../format.ts';
import { useAction } from '../hooks.ts';
import { useCan } from '../scopes.tsx';
import { useSession } from '../session.tsx';
import type { PrivacyRequest } from '../schema.ts';

const CLOSED = new Set(['complete', 'denied', 'canceled']);
const DAY_MS = 86_400_000;

/** Whole days left to decide a pending appeal (negative once overdue); undefined without one. */
export function appealDaysLeft(request: PrivacyRequest, now = Date.now()): number | undefined {
  const due = request.appeal?.status === 'pending' ? request.appeal.due_date : null;
  return due ? Math.floor((new Date(due).getTime() - now) / DAY_MS) : undefined;
}
const REASON_MAX_LENGTH = 2000;

export function ClockFacts(props: { request: PrivacyRequest }) {
  const { request } = props;
  const appeal = request.appeal;
  return (
    <>
      <dt>Jurisdiction</dt>
      <dd>{request.jurisdiction ?? 'none (the policy’s timeframe applies)'}</dd>
      <dt>Acknowledged</dt>
      <dd>{request.acknowledged_at ? formatDateTime(request.acknowledged_at) : 'not yet'}</dd>
      {request.extended_at ? (
        <>
          <dt>Extended</dt>
          <dd>
            {formatDateTime(request.extended_at)}: {request.extension_reason}
          </dd>
        </>
      ) : null}
      {request.denial_reason ? (
        <>
          <dt>Denial reason</dt>
          <dd>{request.denial_reason}</dd>
        </>
      ) : null}
      {request.duplicate_of ? (
        <>
          <dt>Duplicate of</dt>
          <dd>
            <Link href={`/requests/${request.duplicate_of}`}>{request.duplicate_of}</Link>
          </dd>
        </>
      ) : null}
      {request.excessive ? (
        <>
          <dt>Excessive</dt>
          <dd>
            <span className="badge">excessive</span>{' '}
            <small className="hint">third completed access request in 12 months: a person decides</small>
          </dd>
        </>
      ) : null}
      {appeal ? (
        <>
          <dt>Appeal</dt>
          <dd className="appeal-facts">
            <strong>{appeal.status}</strong>
            {appeal.status === 'open'
              ? ` (the subject may appeal until ${formatDate(appeal.window_ends_at)})`
              : ''}
            {appeal.due_date && appeal.status === 'pending'
              ? ` (decide by ${formatDate(appeal.due_date)})`
              : ''}
            {appeal.statement ? <q className="appeal-statement">{appeal.statement}</q> : null}
            {appeal.decided_at
              ? ` Decided ${formatDateTime(appeal.decided_at)} by ${appeal.decided_by ?? '—'}: ${appeal.decision_reason ?? ''}`
              : ''}
          </dd>
        </>
      ) : null}
    </>
  );
}

/**
 * A modal dialog asking for a reason (required, at most `maxLength` characters, trimmed) before an action;
 * the API's sentence stays in it when the API refuses, and it closes and calls `onDone` when it accepts.
 */
export function ReasonDialog(props: {
  heading: string;
  explanation: string;
  submitLabel: string;
  danger?: boolean;
  /** What becomes of the reason, under its field; by default, that the subject is told it. */
  reasonHint?: string;
  maxLength?: number;
  /** More of the form, above the reason (the identities a power of attorney establishes). */
  children?: ReactNode;
  onSubmit: (reason: string) => Promise<unknown>;
  onClose: () => void;
  onDone: () => Promise<void>;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [reason, setReason] = useState('');
  const action = useAction();

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (await action.run(() => props.onSubmit(reason.trim()))) {
      dialog.current?.close();
      await props.onDone();
    }
  }

  return (
    <dialog ref={dialog} onClose={props.onClose} aria-labelledby="reason-heading" className="modal">
      <form onSubmit={submit}>
        <h2 id="reason-heading">{props.heading}</h2>
        <p className="hint">{props.explanation}</p>
        {props.children}
        <Field label="Reason" hint={props.reasonHint ?? 'the subject is told this reason'}>
          {(id, describedBy) => (
            <textarea
              id={id}
              aria-describedby={describedBy}
              required
              maxLength={props.maxLength ?? REASON_MAX_LENGTH}
              rows={3}
              value={reason}
              onChange={(event) => setReason(event.target.value)}
            />
          )}
        </Field>
        <ErrorNotice message={action.error} />
        <div className="buttons">
          <button type="submit" className={props.danger ? 'danger' : 'primary'} disabled={action.pending}>
            {props.submitLabel}
          </button>
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}

type Open = 'extend' | 'reversed' | 'upheld' | null;

export function ClockActions(props: { request: PrivacyRequest; onChanged: () => Promise<void> }) {
  const { api } = useSession();
  const canReview = useCan('privacy-request:review');
  const [open, setOpen] = useState<Open>(null);
  const { request } = props;
  const byId = { params: { path: { id: request.id } } };
  const extendable =
    !CLOSED.has(request.status) &&
    request.jurisdiction !== null &&
    request.extended_at === null &&
    request.days_left >= 0;
  const appealPending = request.appeal?.status === 'pending';
  if (!extendable && !appealPending) return null;
  const refused = canReview ? undefined : 'Needs the scope privacy-request:review';
  const close = () => setOpen(null);
  return (
    <span className="request-actions clock-actions">
      {extendable ? (
        <button type="button" disabled={!canReview} title={refused} onClick={() => setOpen('extend')}>
          Extend…
        </button>
      ) : null}
      {appealPending ? (
        <>
          <button
            type="button"
            className="primary"
            disabled={!canReview}
            title={refused}
            onClick={() => setOpen('reversed')}
          >
            Reverse on appeal…
          </button>
          <button type="button" disabled={!canReview} title={refused} onClick={() => setOpen('upheld')}>
            Uphold on appeal…
          </button>
        </>
      ) : null}
      {open === 'extend' ? (
        <ReasonDialog
          heading={`Extend request ${request.id}`}
          explanation={`Once per request, before its due date (${formatDate(request.due_date)}): the due date moves by the extension ${request.jurisdiction ?? ''} allows, and the subject is told the reason and the new date.`}
          submitLabel="Extend"
          onSubmit={(reason) =>
            answer(api.POST('/v1/privacy-request/{id}/extend', { ...byId, body: { reason } }))
          }
          onClose={close}
          onDone={props.onChanged}
        />
      ) : null}
      {open === 'reversed' || open === 'upheld' ? (
        <ReasonDialog
          heading={`${open === 'reversed' ? 'Reverse' : 'Uphold'} the denial of ${request.id}`}
          explanation={
            open === 'reversed'
              ? 'The request is approved and runs. Only an operator other than the one who denied it may decide.'
              : 'The denial stands; the subject is told the reason and the authority to complain to.'
          }
          submitLabel={open === 'reversed' ? 'Reverse' : 'Uphold'}
          danger={open === 'upheld'}
          onSubmit={(reason) =>
            answer(
              api.POST('/v1/privacy-request/{id}/appeal/decide', {
                ...byId,
                body: { outcome: open, reason },
              }),
            )
          }
          onClose={close}
          onDone={props.onChanged}
        />
      ) : null}
    </span>
  );
}
