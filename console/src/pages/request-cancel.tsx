// Cancel a privacy request (identity_unverified, pending, approved, paused or requires_input), with an
// optional reason, in a modal dialog. The subject is told by email; a paused request's reply-to-token stops
// working; the open tasks of one waiting on them are canceled.
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { answer } from '../api.ts';
import { ErrorNotice, Field } from '../components.tsx';
import { useAction } from '../hooks.ts';
import { useSession } from '../session.tsx';
import type { PrivacyRequest } from '../schema.ts';

export const CANCELABLE = new Set(['identity_unverified', 'pending', 'approved', 'paused', 'requires_input']);

export function CancelDialog(props: {
  request: PrivacyRequest;
  onClose: () => void;
  onCanceled: () => Promise<void>;
}) {
  const { api } = useSession();
  const dialog = useRef<HTMLDialogElement>(null);
  const [reason, setReason] = useState('');
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
          body: trimmed ? { reason: trimmed } : {},
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
