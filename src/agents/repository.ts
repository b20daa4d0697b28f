// SQL for privacy_request_agents: who acts for the subject of a request and how they were authorised.
// The agent goes in and out sealed; the subject's confirmation link as its hash only.
import type { Queryable } from '../db/database.ts';

export interface AgentRow {
  privacy_request_id: string;
  agent_sealed: Uint8Array;
  email_verified_at: Date | null;
  confirm_expires_at: Date | null;
  authorization_kind: 'subject_confirmed' | 'power_of_attorney' | null;
  authorized_at: Date | null;
  authorized_by: string | null;
  authorization_reason: string | null;
  /** The identity keys a power of attorney established (beside the subject's address). */
  authorized_identities: string[];
}

export const agentRepository = {
  async insert(tx: Queryable, privacyRequestId: string, agentSealed: Buffer): Promise<void> {
    await tx.query('INSERT INTO privacy_request_agents (privacy_request_id, agent_sealed) VALUES ($1, $2)', [
      privacyRequestId,
      agentSealed,
    ]);
  },

  async find(db: Queryable, privacyRequestId: string): Promise<AgentRow | undefined> {
    const { rows } = await db.query<AgentRow>(
      'SELECT * FROM privacy_request_agents WHERE privacy_request_id = $1',
      [privacyRequestId],
    );
    return rows[0];
  },

  /** The agent proved their email: the subject's confirmation link (its hash) is set. */
  async markEmailVerified(
    tx: Queryable,
    privacyRequestId: string,
    tokenHash: Buffer,
    ttlSeconds: number,
  ): Promise<Date> {
    const { rows } = await tx.query<{ confirm_expires_at: Date }>(
      `UPDATE privacy_request_agents
          SET email_verified_at = now(), confirm_token_hash = $2,
              confirm_expires_at = now() + make_interval(secs => $3::int)
        WHERE privacy_request_id = $1 RETURNING confirm_expires_at`,
      [privacyRequestId, tokenHash, ttlSeconds],
    );
    return (rows[0] as { confirm_expires_at: Date }).confirm_expires_at;
  },

  /** The agent row a confirmation link names, locked, with whether the link has expired. */
  async lockByToken(
    tx: Queryable,
    tokenHash: Buffer,
  ): Promise<(AgentRow & { expired: boolean }) | undefined> {
    const { rows } = await tx.query<AgentRow & { expired: boolean }>(
      `SELECT *, confirm_expires_at <= now() AS expired FROM privacy_request_agents
        WHERE confirm_token_hash = $1 FOR UPDATE`,
      [tokenHash],
    );
    return rows[0];
  },

  async authorise(
    tx: Queryable,
    privacyRequestId: string,
    kind: 'subject_confirmed' | 'power_of_attorney',
    by: string,
    reason: string | null,
    identities: readonly string[] = [],
  ): Promise<void> {
    await tx.query(
      `UPDATE privacy_request_agents
          SET authorization_kind = $2, authorized_at = now(), authorized_by = $3, authorization_reason = $4,
              authorized_identities = $5
        WHERE privacy_request_id = $1`,
      [privacyRequestId, kind, by, reason, identities],
    );
  },
};
