// SQL of the sign-ins under way (oidc_sign_ins) and of the one-time hand-offs to the console
// (oidc_handoffs). Both hold digests only, and each row is spent by deleting it.
import type { Queryable } from '../db/database.ts';

export const signInRepository = {
  async insert(db: Queryable, row: { stateDigest: Buffer; browserDigest: Buffer; ttlSeconds: number }) {
    await db.query(
      `INSERT INTO oidc_sign_ins (state_digest, browser_digest, expires_at)
       VALUES ($1, $2, now() + make_interval(secs => $3))`,
      [row.stateDigest, row.browserDigest, row.ttlSeconds],
    );
  },

  /** Spends the live sign-in of the state; its browser's digest, or undefined when unknown, spent or expired. */
  async take(db: Queryable, stateDigest: Buffer): Promise<{ browser_digest: Uint8Array } | undefined> {
    const { rows } = await db.query<{ browser_digest: Uint8Array }>(
      `DELETE FROM oidc_sign_ins WHERE state_digest = $1 AND expires_at > now() RETURNING browser_digest`,
      [stateDigest],
    );
    return rows[0];
  },

  async removeExpired(db: Queryable): Promise<void> {
    await db.query('DELETE FROM oidc_sign_ins WHERE expires_at <= now()');
    await db.query('DELETE FROM oidc_handoffs WHERE expires_at <= now()');
  },
};

export const handoffRepository = {
  async insert(db: Queryable, row: { codeDigest: Buffer; username: string; ttlSeconds: number }) {
    await db.query(
      `INSERT INTO oidc_handoffs (code_digest, username, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))`,
      [row.codeDigest, row.username, row.ttlSeconds],
    );
  },

  /** Spends the live hand-off; the operator's username, or undefined when unknown, spent or expired. */
  async take(db: Queryable, codeDigest: Buffer): Promise<string | undefined> {
    const { rows } = await db.query<{ username: string }>(
      'DELETE FROM oidc_handoffs WHERE code_digest = $1 AND expires_at > now() RETURNING username',
      [codeDigest],
    );
    return rows[0]?.username;
  },
};
