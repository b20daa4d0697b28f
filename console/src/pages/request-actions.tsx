// Review actions on privacy requests: approve (an erasure only after a dialog shows what it would touch),
// deny with a reason (in a modal dialog centred on the page,
// showing the request it denies), retry a request in error. Each calls the management API and reports the
// API's own sentence when it refuses; without privacy-request:review the buttons are disabled.
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { answer, ApiError } from '../api.ts';
import { ErrorNotice, Field, Loading } from '../components.tsx';
import { deadlineText, formatDate, formatDateTime, maskedIdentity } from '../format.ts';
import { useAction, useResource } from '../hooks.ts';
import { useCan } from '../scopes.tsx';
import { useSession } from '../session.tsx';
import type { Ok, PrivacyRequest } from '../schema.ts';
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

type ErasurePreview = Ok<'/v1/privacy-request/{id}/erasure-preview', 'get'>;

/** Whether approving the request erases: its policy has an erasure rule. */
export const erases = (request: PrivacyRequest) =>
  request.policy?.rules.some((rule) => rule.action_type === 'erasure') ?? false;

const EFFECT_WORDS = { rewrite: 'masked', delete: 'deleted', forget: 'forgotten with its entity' } as const;

function PreviewFacts(props: { preview: ErasurePreview }) {
  const { preview } = props;
  const touched = preview.datastores.filter((store) => store.matched_entities > 0);
  return (
    <>
      <h3>Datastores</h3>
      {touched.length === 0 ? (
        <p data-testid="erasure-preview-nothing">
          The request&apos;s identities match no entity in any datastore: the rules would erase nothing.
        </p>
      ) : (
        <table className="responsive" aria-label="What each datastore would lose">
          <thead>
            <tr>
              <th scope="col">Datastore</th>
              <th scope="col">Entities matched</th>
              <th scope="col">Rule</th>
              <th scope="col">Entities</th>
              <th scope="col">Attributes</th>
              <th scope="col">Files</th>
            </tr>
          </thead>
          <tbody>
            {touched.flatMap((store) =>
              store.rules.map((rule) => (
                <tr key={`${store.datastore}/${rule.rule_key}`}>
                  <td data-label="Datastore">
                    <code>{store.datastore}</code>
                  </td>
                  <td data-label="Entities matched">{store.matched_entities}</td>
                  <td data-label="Rule">
                    <code>{rule.rule_key}</code> ({rule.strategy}: {EFFECT_WORDS[rule.effect]})
                  </td>
                  <td data-label="Entities">{rule.entities}</td>
                  <td data-label="Attributes">{rule.attributes}</td>
                  <td data-label="Files">{rule.files}</td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      )}
      <h3>Manual systems</h3>
      {preview.manual_systems.length === 0 ? (
        <p>No manual system gets an erasure task.</p>
      ) : (
        <ul aria-label="Manual systems that get an erasure task">
          {preview.manual_systems.map((system) => (
            <li key={system.key}>
              {system.name} (<code>{system.key}</code>)
            </li>
          ))}
        </ul>
      )}
      <h3>Webhooks</h3>
      {preview.webhooks.length === 0 ? (
        <p>No webhook is called.</p>
      ) : (
        <ul aria-label="Webhooks called">
          {preview.webhooks.map((webhook) => (
            <li key={`${webhook.timing}/${webhook.key}`}>
              {webhook.name} (<code>{webhook.connection_key}</code>, {webhook.timing}-execution)
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/**
 * Approving an erasure: the dialog first shows what it would touch (GET .../erasure-preview, computed
 * from the request's proven identities, read-only), and approves only on a second, explicit click.
 */
function ErasureApprovalDialog(props: {
  request: PrivacyRequest;
  onClose: () => void;
  onApproved: () => Promise<void>;
}) {
  const { api } = useSession();
  const dialog = useRef<HTMLDialogElement>(null);
  const approve = useAction();
  const preview = useResource(
    () =>
      answer(
        api.GET('/v1/privacy-request/{id}/erasure-preview', { params: { path: { id: props.request.id } } }),
      ),
    props.request.id,
  );

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const ok = await approve.run(async () => {
      const approved = await answer(
        api.PATCH('/v1/privacy-request/administrate/approve', { body: { request_ids: [props.request.id] } }),
      );
      const failure = firstFailure(approved);
      if (failure) throw new ApiError(400, failure);
    });
    if (ok) {
      dialog.current?.close();
      await props.onApproved();
    }
  }

  return (
    <dialog ref={dialog} onClose={props.onClose} aria-labelledby="erasure-heading" className="modal wide">
      <form onSubmit={submit}>
        <h2 id="erasure-heading">Approve the erasure {props.request.external_id || props.request.id}</h2>
        <p className="hint">
          What approving would erase now, from the identities the request proved. Nothing is changed until you
          approve.
        </p>
        {preview.data ? <PreviewFacts preview={preview.data} /> : null}
        {preview.loading && !preview.data ? <Loading what="what the erasure would touch" /> : null}
        <ErrorNotice message={preview.error || approve.error} />
        <div className="buttons">
          <button type="submit" className="danger" disabled={approve.pending || !preview.data}>
            Approve erasure
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
  const [previewing, setPreviewing] = useState(false);
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
            onClick={() => (erases(request) ? setPreviewing(true) : void approve())}
          >
            {erases(request) ? 'Approve…' : 'Approve'}
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
      {previewing ? (
        <ErasureApprovalDialog
          request={request}
          onClose={() => setPreviewing(false)}
          onApproved={props.onChanged}
        />
      ) : null}
      {denying ? (
        <DenyDialog request={request} onClose={() => setDenying(false)} onDenied={props.onChanged} />
      ) : null}
    </span>
  );
}
