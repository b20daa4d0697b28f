// Sign-in with a management OAuth client: the id and secret are exchanged for a token and then dropped;
// the form never keeps the secret after submitting and the browser is told not to autofill it.
import { type FormEvent, useState } from 'react';
import { ErrorNotice, Field } from '../components.tsx';
import { errorText } from '../hooks.ts';

export function SignInPage(props: {
  start: (clientId: string, clientSecret: string) => Promise<void>;
  message: string;
}) {
  const [clientId, setClientId] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const [error, setError] = useState('');
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setPending(true);
    setError('');
    try {
      await props.start(clientId.trim(), clientSecret);
    } catch (caught) {
      setError(errorText(caught));
      setPending(false);
    } finally {
      setClientSecret('');
    }
  }

  return (
    <main id="main" className="sign-in">
      <h1>Lethe console</h1>
      <p>
        Sign in with a management OAuth client. The root client is in <code>.lethe/root-client.json</code>.
      </p>
      {props.message ? (
        <p className="notice" role="status">
          {props.message}
        </p>
      ) : null}
      <form onSubmit={submit} className="card" aria-label="Sign in">
        <Field label="Client id">
          {(id) => (
            <input
              id={id}
              name="client_id"
              required
              autoComplete="username"
              value={clientId}
              onChange={(event) => setClientId(event.target.value)}
            />
          )}
        </Field>
        <Field label="Client secret">
          {(id) => (
            <input
              id={id}
              name="client_secret"
              type="password"
              required
              autoComplete="off"
              value={clientSecret}
              onChange={(event) => setClientSecret(event.target.value)}
            />
          )}
        </Field>
        <ErrorNotice message={error} />
        <button type="submit" className="primary" disabled={pending}>
          {pending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
