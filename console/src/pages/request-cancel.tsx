// Cancel a privacy request (identity_unverified, pending, approved, paused or requires_input), with an
// optional reason, in a modal dialog. The subject is told by email; a paused request's reply-to-token stops
// working; the open tasks of one waiting on them are canceled. Cancel cannot refuse: once the request is
// verified (or an operator made it) the dialog asks why, as one of three codes, and says that a refusal is
// a denial with a reason (docs/privacy-requests.md).
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { answer } from '../api.ts';
import { ErrorNotice, Field } from '../components.tsx';
import { useAction } from '../hooks.ts';
import { useSession } from '../session.tsx';
import type { PrivacyRequest } from '../schema.ts';

export const CANCELABLE = new Set(['identity_unverified', 'pending', 'approved', 'paused', 'requires_input']);

/**
 * The reasons a verified request may be canceled for, as the dialog words them: typed by the request's
 * `cancel_reason_code` (generated from the API), so a code the API does not know fails to compile.
 */
const REASON_CODES: readonly { code: NonNullable<PrivacyRequest['cancel_reason_code']>; label: string }[] = [
  { code: 'subject_withdrew', label: 'The subject withdrew the request' },
  { code: 'duplicate', label: 'It repeats another request' },
  { code: 'unverifiable', label: 'The identity could not be verified' },
];

export function CancelDialog(props: {
  request: PrivacyRequest;
  onClose: () => void;
  onCanceled: () => Promise<void>;
}) {
  const { api } = useSession();
  const dialog = useRef<HTMLDialogElement>(null);
  const [reason, setReason] = useState('');
  const [reasonCode, setReasonCode] = useState('');
  const needsCode = props.request.identity_verified_at !== null || props.request.client_id !== null;
  const cancel = useAction();

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = reason.trim();
    const ok = await cancel.run(() =>
      answer(
        api.POST('/v1/privacy-request/{id}/cancel', {
          params: { path: { id: props.request.id } },
          body: {
            ...(trimmed ? { reason: trimmed } : {}),
            ...(reasonCode ? { reason_code: reasonCode } : {}),
          },
        }),
      ),
    );
    if (ok) {
      dialog.current?.close();
      await props.onCanceled();
    }
  }

  return (
    <dialog ref={dialog} onClose={props.onClose} aria-labelledby="cancel-heading" className="card">
      <form onSubmit={submit}>
        <h2 id="cancel-heading">Cancel request</h2>
        <p>
          <code>{props.request.id}</code>
        </p>
        <p className="hint">
          To refuse a request, deny it with a reason: the subject is then told whom to complain to and how to
          appeal. Cancel only for one of the reasons below.
        </p>
        <Field
          label="Why"
          hint={needsCode ? 'required: the request is verified' : 'optional before the identity is verified'}
        >
          {(id, describedBy) => (
            <select
              id={id}
              aria-describedby={describedBy}
              required={needsCode}
              value={reasonCode}
              onChange={(event) => setReasonCode(event.target.value)}
            >
              <option value="">{needsCode ? 'Choose a reason' : 'No reason code'}</option>
              {REASON_CODES.map((choice) => (
                <option key={choice.code} value={choice.code}>
                  {choice.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Reason" hint="optional; sent to the data subject">
          {(id, describedBy) => (
            <textarea
              id={id}
              aria-describedby={describedBy}
              rows={3}
              maxLength={1000}
              value={reason}
              onChange={(event) => setReason(event.target.value)}
            />
          )}
        </Field>
        <ErrorNotice message={cancel.error} />
        <div className="buttons">
          <button type="submit" className="danger" disabled={cancel.pending}>
            Cancel the request
          </button>
          <button type="button" onClick={() => dialog.current?.close()}>
            Keep it
          </button>
        </div>
      </form>
    </dialog>
  );
}
