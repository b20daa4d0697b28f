// Connections: the HTTPS targets webhooks call. Owns the rules of the connection endpoints; their secrets
// (authorization header value, extra callback headers, OAuth client secret, callback signing secret) are
// sealed by secrets.ts. It must never return, log or put in an error
// message a secret value; the one exception is a new signing secret, answered once to whoever made it.
import { type ChangeActor, recordChange } from '../audit/audit-log.ts';
import type { Config } from '../config.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Database } from '../db/database.ts';
import { conflict, invalid, notFound } from '../errors.ts';
import { assertAllowedDestination } from '../net/destination-guard.ts';
import { type BulkResult, echoFields, itemValidator } from '../validation/bulk.ts';
import { pageOf } from '../validation/page.ts';
import { callbackHeadersProblem } from './callback-headers.ts';
import { type ConnectionViewRow, connectionRepository, type WebhookUse } from './repository.ts';
import {
  CONNECTION_FIELDS,
  ConnectionItem,
  type ConnectionUpsertView,
  type ConnectionView,
  type OAuthBody,
  type OAuthPatchBody,
  SECRET_MASK,
  type SecretsBody,
  type SigningSecretAnswer,
} from './schemas.ts';
import {
  generateSigningSecret,
  sealAuthorization,
  sealCallbackHeaders,
  sealOAuthClientSecret,
  sealSigningSecret,
} from './secrets.ts';
import { maskUrlSecrets, storedUnlessMasked } from './url-mask.ts';

const checkItem = itemValidator(ConnectionItem);
const OAUTH_FIELDS = ['grant_type', 'token_url', 'scope', 'client_id', 'client_secret'] as const;

export class ConnectionService {
  readonly #db: Database;
  readonly #config: Config;
  readonly #keyring: Keyring;

  constructor(services: { db: Database; config: Config; keyring: Keyring }) {
    this.#db = services.db;
    this.#config = services.config;
    this.#keyring = services.keyring;
  }

  async list(page: number, size: number) {
    const [rows, total] = await Promise.all([
      connectionRepository.page(this.#db, size, (page - 1) * size),
      connectionRepository.count(this.#db),
    ]);
    return pageOf(rows.map(toView), total, page, size);
  }

  async get(key: string): Promise<ConnectionView> {
    const row = await connectionRepository.find(this.#db, key);
    if (!row) throw notFound(`No connection with key ${key}.`);
    return toView(row);
  }

  /**
   * Creates or updates each item on its own: a failing item is reported and the others still apply.
   * A created connection gets its signing secret, shown in its `succeeded` item and never again.
   */
  async upsert(by: ChangeActor, items: readonly unknown[]): Promise<BulkResult<ConnectionUpsertView>> {
    const result: BulkResult<ConnectionUpsertView> = { succeeded: [], failed: [] };
    const seen = new Set<string>();
    for (const item of items) {
      const fail = (message: string) =>
        result.failed.push({ message, data: echoFields(item, CONNECTION_FIELDS) });
      const checked = checkItem(item);
      if (!checked.ok) {
        fail(checked.message);
        continue;
      }
      const connection = checked.value;
      if (connection.connection_type !== 'https') {
        fail('connection_type must be https: webhooks call HTTPS connections only.');
        continue;
      }
      if (seen.has(connection.key)) {
        fail(`key ${connection.key} appears more than once in this request.`);
        continue;
      }
      seen.add(connection.key);
      const signingSecret = generateSigningSecret();
      const created = await this.#db.transaction(async (tx) => {
        const inserted = await connectionRepository.upsert(
          tx,
          {
            key: connection.key,
            name: connection.name,
            connectionType: connection.connection_type,
            access: connection.access,
            description: connection.description,
          },
          sealSigningSecret(this.#keyring, connection.key, signingSecret),
        );
        await recordChange(tx, by, inserted ? 'connection.create' : 'connection.update', {
          key: connection.key,
          fields: Object.keys(connection),
        });
        return inserted;
      });
      const view = await this.get(connection.key);
      result.succeeded.push(created ? { ...view, signing_secret: signingSecret } : view);
    }
    return result;
  }

  /** Deletes a connection no webhook uses; 409 naming the webhooks otherwise. */
  async remove(by: ChangeActor, key: string): Promise<void> {
    await this.#db.transaction(async (tx) => {
      if (!(await connectionRepository.lock(tx, key))) throw notFound(`No connection with key ${key}.`);
      const uses = await connectionRepository.webhookUses(tx, key);
      if (uses.length > 0) {
        throw conflict(
          `Connection ${key} is used by the webhooks ${uses.map(describeUse).join(', ')}; remove them first.`,
        );
      }
      await connectionRepository.remove(tx, key);
      await recordChange(tx, by, 'connection.delete', { key });
    });
  }

  /**
   * Replaces the secrets (url, the optional authorization value and extra headers). While OAuth is configured it decides
   * the callback's authorization, so a new authorization value is refused until the oauth resource is deleted.
   */
  async replaceSecrets(by: ChangeActor, key: string, secrets: SecretsBody): Promise<ConnectionView> {
    await this.get(key);
    const headersProblem = secrets.headers && callbackHeadersProblem(secrets.headers);
    if (headersProblem) throw invalid(headersProblem);
    await assertAllowedDestination(secrets.url, this.#config, 'url');
    await this.#db.transaction(async (tx) => {
      const locked = await connectionRepository.lock(tx, key);
      if (!locked) throw notFound(`No connection with key ${key}.`);
      if (locked.has_oauth && secrets.authorization !== undefined) {
        throw conflict(
          `Connection ${key} uses OAuth; delete its oauth resource before setting an authorization secret.`,
        );
      }
      const sealed =
        secrets.authorization === undefined
          ? null
          : sealAuthorization(this.#keyring, key, secrets.authorization);
      const headers =
        secrets.headers && Object.keys(secrets.headers).length > 0
          ? {
              names: Object.keys(secrets.headers),
              sealed: sealCallbackHeaders(this.#keyring, key, secrets.headers),
            }
          : null;
      await connectionRepository.replaceSecrets(tx, key, {
        url: storedUnlessMasked(secrets.url, locked.secrets_url),
        authorizationSealed: sealed,
        headers,
      });
      await recordChange(tx, by, 'connection.secrets.replace', { key, fields: Object.keys(secrets) });
    });
    return this.get(key);
  }

  async replaceOAuth(by: ChangeActor, key: string, oauth: OAuthBody): Promise<ConnectionView> {
    await this.get(key);
    await assertAllowedDestination(oauth.token_url, this.#config, 'token_url');
    await this.#db.transaction(async (tx) => {
      const current = await connectionRepository.findOAuth(tx, key);
      if (!current) throw notFound(`No connection with key ${key}.`);
      await connectionRepository.replaceOAuth(tx, key, {
        grantType: oauth.grant_type,
        tokenUrl: storedUnlessMasked(oauth.token_url, current.oauth_token_url),
        scope: oauth.scope,
        clientId: oauth.client_id,
        clientSecretSealed: sealOAuthClientSecret(this.#keyring, key, oauth.client_secret),
      });
      await recordChange(tx, by, 'connection.oauth.replace', { key, fields: Object.keys(oauth) });
    });
    return this.get(key);
  }

  /**
   * Changes only the given OAuth fields. On a connection without OAuth a complete body (all five fields)
   * creates the configuration, as Fides does; an incomplete one is 422.
   */
  async updateOAuth(by: ChangeActor, key: string, changes: OAuthPatchBody): Promise<ConnectionView> {
    await this.get(key);
    if (changes.token_url !== undefined) {
      await assertAllowedDestination(changes.token_url, this.#config, 'token_url');
    }
    await this.#db.transaction(async (tx) => {
      const current = await connectionRepository.findOAuth(tx, key);
      if (!current) throw notFound(`No connection with key ${key}.`);
      const grantType = changes.grant_type ?? current.oauth_grant_type;
      const tokenUrl =
        changes.token_url === undefined
          ? current.oauth_token_url
          : storedUnlessMasked(changes.token_url, current.oauth_token_url);
      const scope = changes.scope ?? current.oauth_scope;
      const clientId = changes.client_id ?? current.oauth_client_id;
      const clientSecretSealed =
        changes.client_secret === undefined
          ? current.oauth_client_secret_sealed && Buffer.from(current.oauth_client_secret_sealed)
          : sealOAuthClientSecret(this.#keyring, key, changes.client_secret);
      if (
        grantType === null ||
        tokenUrl === null ||
        scope === null ||
        clientId === null ||
        clientSecretSealed === null
      ) {
        const missing = OAUTH_FIELDS.filter((field) => changes[field] === undefined);
        throw invalid(
          `Connection ${key} has no OAuth configuration; to create it send every field (missing: ${missing.join(', ')}).`,
        );
      }
      await connectionRepository.replaceOAuth(tx, key, {
        grantType,
        tokenUrl,
        scope,
        clientId,
        clientSecretSealed,
      });
      await recordChange(tx, by, 'connection.oauth.update', { key, fields: Object.keys(changes) });
    });
    return this.get(key);
  }

  /**
   * Replaces the signing secret and answers the new one (its only appearance). With a grace period the
   * previous secret keeps signing alongside it until then, so receivers can switch without a gap.
   */
  async rotateSigningSecret(
    by: ChangeActor,
    key: string,
    gracePeriodSeconds: number,
  ): Promise<SigningSecretAnswer> {
    const signingSecret = generateSigningSecret();
    const rotated = await this.#db.transaction(async (tx) => {
      const answer = await connectionRepository.rotateSigningSecret(
        tx,
        key,
        sealSigningSecret(this.#keyring, key, signingSecret),
        gracePeriodSeconds,
      );
      if (answer) {
        await recordChange(tx, by, 'connection.signing-secret.rotate', {
          key,
          grace_period_seconds: gracePeriodSeconds,
        });
      }
      return answer;
    });
    if (!rotated) throw notFound(`No connection with key ${key}.`);
    return {
      signing_secret: signingSecret,
      previous_secret_expires_at: rotated.previous_expires_at?.toISOString() ?? null,
    };
  }

  async deleteOAuth(by: ChangeActor, key: string): Promise<ConnectionView> {
    await this.#db.transaction(async (tx) => {
      const current = await connectionRepository.findOAuth(tx, key);
      if (!current) throw notFound(`No connection with key ${key}.`);
      if (current.oauth_grant_type === null) throw notFound(`Connection ${key} has no OAuth configuration.`);
      await connectionRepository.replaceOAuth(tx, key, null);
      await recordChange(tx, by, 'connection.oauth.delete', { key });
    });
    return this.get(key);
  }
}

function describeUse(use: WebhookUse): string {
  return use.kind === 'pre_approval'
    ? `pre_approval/${use.key}`
    : `${use.policy_key}/${use.timing === 'pre' ? 'pre_execution' : 'post_execution'}/${use.key}`;
}

function toView(row: ConnectionViewRow): ConnectionView {
  const { oauth_grant_type: grantType, oauth_token_url: tokenUrl, oauth_scope: scope } = row;
  const { oauth_client_id: clientId } = row;
  return {
    key: row.key,
    name: row.name,
    connection_type: row.connection_type,
    access: row.access,
    description: row.description,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    secrets:
      row.secrets_url === null
        ? null
        : {
            url: maskUrlSecrets(row.secrets_url),
            authorization: row.has_authorization ? SECRET_MASK : null,
            ...(row.secrets_header_names
              ? { headers: Object.fromEntries(row.secrets_header_names.map((name) => [name, SECRET_MASK])) }
              : {}),
          },
    oauth:
      grantType !== null && tokenUrl !== null && scope !== null && clientId !== null
        ? {
            grant_type: grantType,
            token_url: maskUrlSecrets(tokenUrl),
            scope,
            client_id: clientId,
            client_secret: SECRET_MASK,
          }
        : null,
    webhooks_using: row.webhooks_using,
    has_signing_secret: row.has_signing_secret,
  };
}
