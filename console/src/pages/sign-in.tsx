// Sign-in as an operator (username and password) or with a management OAuth client (id and secret), for
// integrations and the first start. The credentials are exchanged for a token and then dropped: the form
// never keeps a password or secret after submitting. On a fresh start (the service says no operator
// account exists yet) it opens on the management client, with the root client's hint shown at once.
import { type FormEvent, useEffect, useState } from 'react';
import { requestOperatorAccountsExist } from '../api.ts';
import { ErrorNotice, Field } from '../components.tsx';
import { errorText } from '../hooks.ts';
import type { Credentials } from '../session.tsx';

type Mode = 'operator' | 'client';

export function SignInPage(props: { start: (credentials: Credentials) => Promise<void>; message: string }) {
  const [mode, setMode] = useState<Mode | undefined>(undefined);
  const [noOperators, setNoOperators] = useState(false);
  const [name, setName] = useState('');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState('');
  const [pending, setPending] = useState(false);

  useEffect(() => {
    let live = true;
    void requestOperatorAccountsExist().then((exist) => {
      if (!live) return;
      setNoOperators(exist === false);
      setMode((chosen) => chosen ?? (exist === false ? 'client' : 'operator'));
    });
    return () => {
      live = false;
    };
  }, []);

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

  if (mode === undefined) {
    return (
      <main id="main" className="sign-in">
        <h1>Lethe console</h1>
        <p className="loading" role="status" aria-live="polite">
          Loading…
        </p>
      </main>
    );
  }

  const operator = mode === 'operator';
  return (
    <main id="main" className="sign-in">
      <h1>Lethe console</h1>
      {noOperators ? (
        <p className="notice" data-testid="first-start">
          No operator account exists yet. Sign in with the root client, whose id and secret are in{' '}
          <code>.lethe/root-client.json</code> (printed once at first start), then create accounts on the
          Users page.
        </p>
      ) : null}
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
