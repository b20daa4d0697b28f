// The signed-in session: the management access token lives in this component's memory and in this tab's
// sessionStorage (stored-session.ts), so a reload keeps the session while closing the tab ends it. A
// refused or expired token ends the session, forgets the stored token, and the sign-in page says why;
// signing out also ends the token at the server.
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { answer, type Api, createApi, requestLogin, requestProviderSession, requestToken } from './api.ts';
import { forgetStoredToken, readStoredToken, storeToken } from './stored-session.ts';
import type { ConsoleSession } from './schema.ts';

/**
 * An operator's username and password, a management client's id and secret, or the one-time code the
 * identity provider's sign-in left in the address's fragment (`#oidc=...`).
 */
export type Credentials =
  | { kind: 'operator'; username: string; password: string }
  | { kind: 'client'; clientId: string; clientSecret: string }
  | { kind: 'provider'; code: string };

/** Whether the session's scopes grant `scope`: exactly, or `x:*` for `x:read` (as the API decides). */
export function holds(scopes: readonly string[], scope: string): boolean {
  if (scopes.includes(scope)) return true;
  return scope.endsWith(':read') && scopes.includes(`${scope.slice(0, -':read'.length)}:*`);
}

interface SignedIn {
  token: string;
  expiresAt: number;
  info: ConsoleSession;
}

interface SessionContextValue {
  api: Api;
  info: ConsoleSession;
  signOut(message?: string): void;
}

const SessionContext = createContext<SessionContextValue | null>(null);

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside a signed-in session');
  return value;
}

export const EXPIRED_MESSAGE = 'Your session has expired. Sign in again.';

export function SessionGate(props: {
  signIn: (start: (credentials: Credentials) => Promise<void>, message: string) => ReactNode;
  children: ReactNode;
}) {
  const [session, setSession] = useState<SignedIn | null>(null);
  const [message, setMessage] = useState('');
  // A token stored by this tab before a reload is checked with the service before anything renders.
  const [restoring, setRestoring] = useState(() => readStoredToken() !== undefined);

  const signOut = useCallback((reason = '') => {
    forgetStoredToken();
    setSession(null);
    setMessage(reason);
  }, []);

  useEffect(() => {
    const stored = readStoredToken();
    if (!stored) return;
    let live = true;
    answer(createApi(stored.token, () => undefined).GET('/console/session'))
      .then(
        (info) => {
          if (live) setSession({ ...stored, info });
        },
        () => {
          if (!live) return;
          forgetStoredToken();
          setMessage(EXPIRED_MESSAGE);
        },
      )
      .finally(() => {
        if (live) setRestoring(false);
      });
    return () => {
      live = false;
    };
  }, []);

  const start = useCallback(async (credentials: Credentials) => {
    const granted =
      credentials.kind === 'operator'
        ? await requestLogin(credentials.username, credentials.password)
        : credentials.kind === 'provider'
          ? await requestProviderSession(credentials.code)
          : await requestToken(credentials.clientId, credentials.clientSecret);
    const probe = createApi(granted.access_token, () => undefined);
    const info = await answer(probe.GET('/console/session'));
    const signedIn = { token: granted.access_token, expiresAt: Date.now() + granted.expires_in * 1000 };
    storeToken(signedIn);
    setMessage('');
    setSession({ ...signedIn, info });
  }, []);

  useEffect(() => {
    if (!session) return;
    const timer = setTimeout(() => signOut(EXPIRED_MESSAGE), Math.max(0, session.expiresAt - Date.now()));
    return () => clearTimeout(timer);
  }, [session, signOut]);

  const value = useMemo<SessionContextValue | null>(() => {
    if (!session) return null;
    const api = createApi(session.token, () => signOut(EXPIRED_MESSAGE));
    // Signing out ends the token at the server too (POST /v1/logout), so a copy of it stops working; the
    // console forgets it at once either way (a 401 of an already expired token changes nothing).
    const endSession = (reason?: string) => {
      void answer(createApi(session.token, () => undefined).POST('/v1/logout')).catch(() => undefined);
      signOut(reason);
    };
    return { api, info: session.info, signOut: endSession };
  }, [session, signOut]);

  if (restoring) {
    return (
      <main id="main" className="sign-in">
        <p className="loading" role="status" aria-live="polite">
          Restoring your session…
        </p>
      </main>
    );
  }
  if (!value) return <>{props.signIn(start, message)}</>;
  return <SessionContext.Provider value={value}>{props.children}</SessionContext.Provider>;
}
