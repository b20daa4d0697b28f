import type { Queryable } from '../db/database.ts';

export interface ClientRow {
  id: string;
  name: string;
  secret_digest: Uint8Array;
  scopes: string[];
  created_at: Date;
}

export const clientRepository = {
  async insert(db: Queryable, client: { id: string; name: string; secretDigest: Buffer; scopes: string[] }) {
    const { rows } = await db.query<ClientRow>(
      'INSERT INTO oauth_clients (id, name, secret_digest, scopes) VALUES ($1, $2, $3, $4) RETURNING *',
      [client.id, client.name, client.secretDigest, client.scopes],
    );
    return rows[0] as ClientRow;
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
  async findLive(
    db: Queryable,
    digests: readonly Buffer[],
  ): Promise<
    | { token_digest: Uint8Array; client_id: string | null; username: string | null; scopes: string[] }
    | undefined
  > {
    const { rows } = await db.query<{
      token_digest: Uint8Array;
      client_id: string | null;
      username: string | null;
      scopes: string[];
    }>(
      `SELECT token_digest, client_id, username, scopes FROM oauth_access_tokens
        WHERE token_digest = ANY($1::bytea[]) AND expires_at > now()`,
      [digests],
    );
    return rows[0];
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
