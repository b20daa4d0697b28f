// Sign-in as an operator (username and password, or through the company's identity provider when one is
// configured) or with a management OAuth client (id and secret), for integrations and the first start.
// Back from the provider, the address's fragment carries a one-time code (`#oidc=...`): it is removed from
// the address at once and traded for the session. The credentials are exchanged for a token and then dropped: the form
// never keeps a password or secret after submitting. On a fresh start (the service says no operator
// account exists yet) it opens on the management client, with the root client's hint shown at once.
import { type FormEvent, useEffect, useState } from 'react';
import { requestOperatorAccountsExist, requestSignInMethods } from '../api.ts';
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
  // Back from the identity provider: the one-time code in the fragment, read once.
  const [providerCode] = useState(() => /^#oidc=([\w-]+)$/.exec(window.location.hash)?.[1]);
  const [pending, setPending] = useState(providerCode !== undefined);
  const [methods, setMethods] = useState<Awaited<ReturnType<typeof requestSignInMethods>>>(undefined);
  const { start } = props;

  useEffect(() => {
    let live = true;
    void Promise.all([requestOperatorAccountsExist(), requestSignInMethods()]).then(([exist, offered]) => {
      if (!live) return;
      setNoOperators(exist === false);
      setMethods(offered);
      const passwords = offered?.password_login !== false;
      setMode((chosen) => chosen ?? (exist === false || !passwords ? 'client' : 'operator'));
    });
    return () => {
      live = false;
    };
  }, []);

  useEffect(() => {
    if (!providerCode) return;
    // The code is spent by the first use; it leaves the address (and the history) before anything else.
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    start({ kind: 'provider', code: providerCode }).catch((caught: unknown) => {
      setError(errorText(caught));
      setPending(false);
    });
  }, [start, providerCode]);

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
  const passwords = methods?.password_login !== false;
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
      {methods?.oidc ? (
        <p className="card">
          <a className="button primary" href={methods.oidc.login_url} data-testid="provider-sign-in">
            Sign in with {methods.oidc.name}
          </a>
        </p>
      ) : null}
      {!passwords ? (
        <p className="hint">
          Operators sign in through the identity provider only here; the form below is for management clients.
        </p>
      ) : null}
      <form onSubmit={submit} className="card" aria-label="Sign in">
        <fieldset>
          <legend>Sign in with</legend>
          {passwords ? (
            <label className="check">
              <input type="radio" name="mode" checked={operator} onChange={() => choose('operator')} />
              An operator account
            </label>
          ) : null}
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
