// Review actions on privacy requests: approve, deny with a reason (in a modal dialog centred on the page,
// showing the request it denies), retry a request in error. Each calls the management API and reports the
// API's own sentence when it refuses; without privacy-request:review the buttons are disabled.
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { answer, ApiError } from '../api.ts';
import { ErrorNotice, Field } from '../components.tsx';
import { deadlineText, formatDate, formatDateTime, maskedIdentity } from '../format.ts';
import { useAction } from '../hooks.ts';
import { useCan } from '../scopes.tsx';
import { useSession } from '../session.tsx';
import type { PrivacyRequest } from '../schema.ts';
import { CANCELABLE, CancelDialog } from './request-cancel.tsx';

export const REVIEWABLE = new Set(['pending']);
export const RETRYABLE = new Set(['error']);

function firstFailure(bulk: { failed: { message: string }[] }): string | undefined {
  return bulk.failed[0]?.message;
}

function DenyDialog(props: { request: PrivacyRequest; onClose: () => void; onDenied: () => Promise<void> }) {
  const { api } = useSession();
  const dialog = useRef<HTMLDialogElement>(null);
  const [reason, setReason] = useState('');
  const deny = useAction();

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const ok = await deny.run(async () => {
      const denied = await answer(
        api.PATCH('/v1/privacy-request/administrate/deny', {
          body: { request_ids: [props.request.id], reason: reason.trim() },
        }),
      );
      const failure = firstFailure(denied);
      if (failure) throw new ApiError(400, failure);
    });
    if (ok) {
      dialog.current?.close();
      await props.onDenied();
    }
  }

  return (
    <dialog
      ref={dialog}
      onClose={props.onClose}
      aria-labelledby="deny-heading"
      aria-describedby="deny-context"
      className="modal"
    >
      <form onSubmit={submit}>
        <h2 id="deny-heading">Deny request {props.request.external_id || props.request.id}</h2>
        <dl className="facts" id="deny-context">
          <dt>Id</dt>
          <dd>
            <code>{props.request.id}</code>
          </dd>
          <dt>Policy</dt>
          <dd>{props.request.policy?.name ?? props.request.policy?.key ?? props.request.policy_id}</dd>
          <dt>Identity</dt>
          <dd>{maskedIdentity(props.request.identity) || '—'}</dd>
          <dt>Received</dt>
          <dd>{formatDateTime(props.request.requested_at)}</dd>
          <dt>Deadline</dt>
          <dd>
            {deadlineText(props.request)} ({formatDate(props.request.due_date)})
          </dd>
        </dl>
        <p className="hint">The request goes to denied and is not executed; the reason is kept in its log.</p>
        <Field label="Reason" hint="recorded with the request">
          {(id, describedBy) => (
            <textarea
              id={id}
              aria-describedby={describedBy}
              required
              rows={3}
              value={reason}
              onChange={(event) => setReason(event.target.value)}
            />
          )}
        </Field>
        <ErrorNotice message={deny.error} />
        <div className="buttons">
          <button type="submit" className="danger" disabled={deny.pending}>
            Deny
          </button>
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}

export function RequestActions(props: { request: PrivacyRequest; onChanged: () => Promise<void> }) {
  const { api } = useSession();
  const action = useAction();
  const [denying, setDenying] = useState(false);
  const canReview = useCan('privacy-request:review');
  const [canceling, setCanceling] = useState(false);
  const { request } = props;

  async function approve() {
    const ok = await action.run(async () => {
      const approved = await answer(
        api.PATCH('/v1/privacy-request/administrate/approve', { body: { request_ids: [request.id] } }),
      );
      const failure = firstFailure(approved);
      if (failure) throw new ApiError(400, failure);
    });
    if (ok) await props.onChanged();
  }

  async function retry() {
    if (
      await action.run(() =>
        answer(api.POST('/v1/privacy-request/{id}/retry', { params: { path: { id: request.id } } })),
      )
    )
      await props.onChanged();
  }

  const reviewable = REVIEWABLE.has(request.status);
  const retryable = RETRYABLE.has(request.status);
  const cancelable = CANCELABLE.has(request.status);
  if (!reviewable && !retryable && !cancelable) return null;
  const refused = canReview ? undefined : 'Needs the scope privacy-request:review';
  return (
    <span className="request-actions">
      {reviewable ? (
        <>
          <button
            type="button"
            className="primary"
            disabled={action.pending || !canReview}
            title={refused}
            aria-label={`Approve ${request.id}`}
            onClick={() => void approve()}
          >
            Approve
          </button>
          <button
            type="button"
            disabled={action.pending || !canReview}
            title={refused}
            aria-label={`Deny ${request.id}`}
            onClick={() => setDenying(true)}
          >
            Deny…
          </button>
        </>
      ) : null}
      {retryable ? (
        <button
          type="button"
          disabled={action.pending || !canReview}
          title={refused}
          aria-label={`Retry ${request.id}`}
          onClick={() => void retry()}
        >
          Retry
        </button>
      ) : null}
      {cancelable ? (
        <button
          type="button"
          disabled={action.pending || !canReview}
          title={refused}
          aria-label={`Cancel ${request.id}`}
          onClick={() => setCanceling(true)}
        >
          Cancel…
        </button>
      ) : null}
      <ErrorNotice message={action.error} />
      {canceling ? (
        <CancelDialog request={request} onClose={() => setCanceling(false)} onCanceled={props.onChanged} />
      ) : null}
      {denying ? (
        <DenyDialog request={request} onClose={() => setDenying(false)} onDenied={props.onChanged} />
      ) : null}
    </span>
  );
}
