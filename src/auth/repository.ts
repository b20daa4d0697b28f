import type { Queryable } from '../db/database.ts';

export interface ClientRow {
  id: string;
  name: string;
  secret_digest: Uint8Array;
  scopes: string[];
  /** The person the client acts for (see Principal.actsFor). */
  acts_for: string | null;
  disabled_at: Date | null;
  created_at: Date;
}

export const clientRepository = {
  async insert(
    db: Queryable,
    client: { id: string; name: string; secretDigest: Buffer; scopes: string[]; actsFor: string },
  ) {
    const { rows } = await db.query<ClientRow>(
      `INSERT INTO oauth_clients (id, name, secret_digest, scopes, acts_for) VALUES ($1, $2, $3, $4, $5)
       RETURNING *`,
      [client.id, client.name, client.secretDigest, client.scopes, client.actsFor],
    );
    return rows[0] as ClientRow;
  },

  /** Disables every live client acting for `person`; the ids of those it disabled. */
  async disableActingFor(db: Queryable, person: string): Promise<string[]> {
    const { rows } = await db.query<{ id: string }>(
      `UPDATE oauth_clients SET disabled_at = now() WHERE acts_for = $1 AND disabled_at IS NULL RETURNING id`,
      [person],
    );
    return rows.map((row) => row.id);
  },

  async find(db: Queryable, id: string): Promise<ClientRow | undefined> {
    const { rows } = await db.query<ClientRow>('SELECT * FROM oauth_clients WHERE id = $1', [id]);
    return rows[0];
  },

  async list(db: Queryable): Promise<ClientRow[]> {
    return (await db.query<ClientRow>('SELECT * FROM oauth_clients ORDER BY created_at, id')).rows;
  },

  async remove(db: Queryable, id: string): Promise<boolean> {
    const { rowCount } = await db.query('DELETE FROM oauth_clients WHERE id = $1', [id]);
    return rowCount > 0;
  },
};

export interface LiveToken {
  token_digest: Uint8Array;
  client_id: string | null;
  username: string | null;
  scopes: string[];
  client_acts_for: string | null;
}

export const tokenRepository = {
  /** A token of a client (`clientId`) or of an operator who signed in (`username`). */
  async insert(
    db: Queryable,
    token: {
      digest: Buffer;
      holder: { clientId: string } | { username: string };
      scopes: readonly string[];
      ttlSeconds: number;
    },
  ) {
    const { holder } = token;
    await db.query(
      `INSERT INTO oauth_access_tokens (token_digest, client_id, username, scopes, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [
        token.digest,
        'clientId' in holder ? holder.clientId : null,
        'username' in holder ? holder.username : null,
        token.scopes,
        token.ttlSeconds,
      ],
    );
  },

  /** The live token stored under one of `digests` (the forms a presented token may be stored under). */
  async findLive(db: Queryable, digests: readonly Buffer[]): Promise<LiveToken | undefined> {
    const { rows } = await db.query<LiveToken>(
      `SELECT t.token_digest, t.client_id, t.username, t.scopes, c.acts_for AS client_acts_for
         FROM oauth_access_tokens t LEFT JOIN oauth_clients c ON c.id = t.client_id
        WHERE t.token_digest = ANY($1::bytea[]) AND t.expires_at > now()`,
      [digests],
    );
    return rows[0];
  },

  /** Gives the operator's live sessions new scopes (their roles changed). */
  async rescopeOperator(db: Queryable, username: string, scopes: readonly string[]) {
    await db.query('UPDATE oauth_access_tokens SET scopes = $2 WHERE username = $1', [username, scopes]);
  },

  /** Ends every session of the operator; how many there were. */
  async removeForOperator(db: Queryable, username: string): Promise<number> {
    return (await db.query('DELETE FROM oauth_access_tokens WHERE username = $1', [username])).rowCount;
  },

  async removeForClients(db: Queryable, clientIds: readonly string[]) {
    if (clientIds.length === 0) return;
    await db.query('DELETE FROM oauth_access_tokens WHERE client_id = ANY($1::text[])', [clientIds]);
  },

  /** Ends the token stored under one of `digests` (sign-out); who held it, when it was live. */
  async removeLive(
    db: Queryable,
    digests: readonly Buffer[],
  ): Promise<{ client_id: string | null; username: string | null } | undefined> {
    const { rows } = await db.query<{ client_id: string | null; username: string | null }>(
      `DELETE FROM oauth_access_tokens WHERE token_digest = ANY($1::bytea[]) AND expires_at > now()
       RETURNING client_id, username`,
      [digests],
    );
    return rows[0];
  },

  async removeForClient(db: Queryable, clientId: string) {
    await db.query('DELETE FROM oauth_access_tokens WHERE client_id = $1', [clientId]);
  },

  async removeExpired(db: Queryable): Promise<number> {
    return (await db.query('DELETE FROM oauth_access_tokens WHERE expires_at <= now()')).rowCount;
  },
};
