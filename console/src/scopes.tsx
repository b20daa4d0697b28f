// What the signed-in client may change. The API refuses a write without its scope (403) in any case; the
// console disables the forms and buttons of a missing scope and says which scope they need, so that a
// read-only client is not invited to fill in a form it cannot send.
import { type ReactNode, useId } from 'react';
import { useSession } from './session.tsx';

export function useCan(scope: string): boolean {
  return useSession().info.scopes.includes(scope);
}

/** Disables every control inside when the session lacks `scope`, and says why. */
export function Guarded(props: { scope: string; className?: string; children: ReactNode }) {
  const can = useCan(props.scope);
  const noteId = useId();
  return (
    <fieldset
      className={['guard', props.className].filter(Boolean).join(' ')}
      disabled={!can}
      aria-describedby={can ? undefined : noteId}
    >
      {can ? null : (
        <p id={noteId} className="hint scope-note">
          Read only: this needs the scope <code>{props.scope}</code>, which your sign-in does not have.
        </p>
      )}
      {props.children}
    </fieldset>
  );
}
