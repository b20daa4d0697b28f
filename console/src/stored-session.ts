// Where the signed-in token survives a reload: this tab's sessionStorage, under one key, with its expiry.
// sessionStorage belongs to the tab and this origin only (another tab, a new window or a closed browser
// starts signed out) and is never sent with a request, so no cookie, no CSRF exposure; what it cannot
// defend against is script running in the page, which the console's CSP (no inline or foreign script)
// is there to prevent. docs/security.md says why this and not a cookie. Nothing else is ever stored.

const KEY = 'lethe.console.session';

export interface StoredToken {
  token: string;
  expiresAt: number;
}

/** The stored token if one is there and not expired; a damaged or expired entry is removed. */
export function readStoredToken(now = Date.now()): StoredToken | undefined {
  let raw: string | null;
  try {
    raw = sessionStorage.getItem(KEY);
  } catch {
    return undefined; // Storage switched off: the session lives in memory only, as before.
  }
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as Partial<StoredToken>;
    if (typeof parsed.token === 'string' && typeof parsed.expiresAt === 'number' && parsed.expiresAt > now) {
      return { token: parsed.token, expiresAt: parsed.expiresAt };
    }
  } catch {
    // Not ours or damaged: forget it below.
  }
  forgetStoredToken();
  return undefined;
}

export function storeToken(stored: StoredToken): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(stored));
  } catch {
    // Storage full or switched off: a reload will ask to sign in again.
  }
}

export function forgetStoredToken(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // Nothing stored.
  }
}
