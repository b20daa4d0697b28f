// Sign-in as an operator (username and password) or with a management OAuth client (id and secret), for
// integrations and the first start. The credentials are exchanged for a token and then dropped: the form
// never keeps a password or secret after submitting.
import { type FormEvent, useState } from 'react';
import { ErrorNotice, Field } from '../components.tsx';
import { errorText } from '../hooks.ts';
import type { Credentials } from '../session.tsx';

type Mode = 'operator' | 'client';

export function SignInPage(props: { start: (credentials: Credentials) => Promise<void>; message: string }) {
  const [mode, setMode] = useState<Mode>('operator');
  const [name, setName] = useState('');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState('');
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setPending(true);
    setError('');
    try {
      await props.start(
        mode === 'operator'
          ? { kind: 'operator', username: name.trim(), password: secret }
          : { kind: 'client', clientId: name.trim(), clientSecret: secret },
      );
    } catch (caught) {
      setError(errorText(caught));
      setPending(false);
    } finally {
      setSecret('');
    }
  }

  function choose(next: Mode) {
    setMode(next);
    setName('');
    setSecret('');
    setError('');
  }

  const operator = mode === 'operator';
  return (
    <main id="main" className="sign-in">
      <h1>Lethe console</h1>
      <p>
        {operator ? (
          <>Sign in with your operator account.</>
        ) : (
          <>
            Sign in with a management OAuth client. The root client is in <code>.lethe/root-client.json</code>
            .
          </>
        )}
      </p>
      {props.message ? (
        <p className="notice" role="status">
          {props.message}
        </p>
      ) : null}
      <form onSubmit={submit} className="card" aria-label="Sign in">
        <fieldset>
          <legend>Sign in with</legend>
          <label className="check">
            <input type="radio" name="mode" checked={operator} onChange={() => choose('operator')} />
            An operator account
          </label>
          <label className="check">
            <input type="radio" name="mode" checked={!operator} onChange={() => choose('client')} />A
            management client
          </label>
        </fieldset>
        <Field label={operator ? 'Username' : 'Client id'}>
          {(id) => (
            <input
              id={id}
              name={operator ? 'username' : 'client_id'}
              required
              autoComplete="username"
              value={name}
              onChange={(event) => setName(event.target.value)}
            />
          )}
        </Field>
        <Field label={operator ? 'Password' : 'Client secret'}>
          {(id) => (
            <input
              id={id}
              name={operator ? 'password' : 'client_secret'}
              type="password"
              required
              autoComplete={operator ? 'current-password' : 'off'}
              value={secret}
              onChange={(event) => setSecret(event.target.value)}
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
