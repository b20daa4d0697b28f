// The control panel's rules for Area B: datastores, API keys, the maintenance switch and reading the
// audit log. Every change is audited in its own transaction. No Fastify here; secrets (the issued key)
// leave this service exactly once, in the answer to the call that issued them.

import { type AuditOrigin, type AuditRecord, listAudit, recordAudit } from '../audit/audit-log.ts';
import { auditActor, type Principal } from '../auth/scopes.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Database } from '../db/database.ts';
import { conflict, invalid, notFound } from '../errors.ts';
import { datastoreRepository, settingsRepository } from './admin-repository.ts';
import { type ApiKeyRow, apiKeyRepository } from '../api-keys/repository.ts';
import { newApiKey } from '../api-keys/keys.ts';
import { pageOf } from '../validation/page.ts';
import { countEntities } from './browse-repository.ts';
import { openRecipient } from './sealing.ts';

export interface ApiKeyView {
  id: string;
  name: string;
  datastores: string[];
  rate_limit_per_minute: number | null;
  created_at: string;
}

export interface MaintenanceView {
  enabled: boolean;
  updated_at: string | null;
}

/** The longest entity name and label a datastore's labels hold. */
const MAX_LABEL = 200;

/** How long one process may answer from its last reading of the maintenance switch. */
const MAINTENANCE_CACHE_MS = 1000;

function keyView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    datastores: row.datastores,
    rate_limit_per_minute: row.rate_limit_per_minute,
    created_at: new Date(row.created_at).toISOString(),
  };
}

export class DatastoreAdminService {
  readonly #db: Database;
  readonly #keyring: Keyring;
  #maintenance: { view: MaintenanceView; readAt: number } | undefined;
  readonly #keyChangeListeners = new Set<(id: string) => void>();

  constructor(db: Database, keyring: Keyring) {
    this.#db = db;
    this.#keyring = keyring;
  }

  async createDatastore(
    principal: Principal,
    input: { name: string; description?: string },
    origin: AuditOrigin,
  ) {
    return this.#db.transaction(async (tx) => {
      const row = await datastoreRepository.insert(tx, input.name, input.description ?? null);
      if (!row) throw conflict(`A datastore named ${input.name} already exists.`);
      await recordAudit(tx, {
        action: 'datastore.create',
        datastore: row.name,
        actor: auditActor(principal),
        ...origin,
      });
      return {
        name: row.name,
        description: row.description,
        created_at: new Date(row.created_at).toISOString(),
      };
    });
  }

  /**
   * Replaces the human labels of a datastore's entity names and attributes (`{"users": "Your account",
   * "users.email": "Email address"}`), which the access report shows instead of the names. Audited with the label count, never the labels.
   */
  async setDatastoreLabels(
    principal: Principal,
    name: string,
    labels: Record<string, string>,
    origin: AuditOrigin,
  ) {
    for (const [entity, label] of Object.entries(labels)) {
      if (entity.length > MAX_LABEL || label.trim() === '' || label.length > MAX_LABEL)
        throw invalid(
          `labels.${entity.slice(0, 100)}: an entity name and its label are each 1 to ${MAX_LABEL} characters.`,
        );
    }
    return this.#db.transaction(async (tx) => {
      if (!(await datastoreRepository.setLabels(tx, name, labels)))
        throw notFound(`No datastore named ${name}.`);
      await recordAudit(tx, {
        action: 'datastore.labels',
        datastore: name,
        actor: auditActor(principal),
        ...origin,
        details: { labels: Object.keys(labels).length },
      });
      return { name, labels };
    });
  }

  /** The datastores with how many entities each holds (counted up to ENTITY_COUNT_CAP). */
  async listDatastores() {
    const [rows, counts] = await Promise.all([datastoreRepository.list(this.#db), countEntities(this.#db)]);
    return rows.map((row) => ({
      name: row.name,
      description: row.description,
      created_at: new Date(row.created_at).toISOString(),
      entity_count: counts.get(row.name)?.count ?? 0,
      entity_count_capped: counts.get(row.name)?.capped ?? false,
      labels: row.labels ?? {},
    }));
  }

  async deleteDatastore(principal: Principal, name: string, origin: AuditOrigin) {
    await this.#db.transaction(async (tx) => {
      const erased = await datastoreRepository.remove(tx, name);
      if (!erased) throw notFound(`No datastore named ${name}.`);
      // In the same transaction: a datastore created later under this name is not reachable with the keys
      // of the one deleted ('*' keys still grant every store, by their definition).
      const keys = await apiKeyRepository.forgetDatastore(tx, name);
      await recordAudit(tx, {
        action: 'datastore.delete',
        datastore: name,
        actor: auditActor(principal),
        ...origin,
        details: { ...erased, api_keys: keys },
      });
      await apiKeyRepository.announceChange(tx, '*');
    });
    this.#keysChanged('*');
  }

  /**
   * Calls `listener` with the id of a key this process revoked ('*' after a datastore deletion), after the
   * commit and before the call that changed it answers; other processes learn it through the
   * announcement (apiKeyRepository.announceChange). Answers the function that stops listening.
   */
  onKeysChanged(listener: (id: string) => void): () => void {
    this.#keyChangeListeners.add(listener);
    return () => this.#keyChangeListeners.delete(listener);
  }

  #keysChanged(id: string): void {
    for (const listener of this.#keyChangeListeners) listener(id);
  }

  async issueKey(
    principal: Principal,
    input: { name: string; datastores: string[]; rate_limit_per_minute?: number },
    origin: AuditOrigin,
  ): Promise<ApiKeyView & { key: string }> {
    const { id, key, secretDigest } = newApiKey();
    const datastores = input.datastores.includes('*') ? ['*'] : [...new Set(input.datastores)];
    return this.#db.transaction(async (tx) => {
      const row = await apiKeyRepository.insert(tx, {
        id,
        name: input.name,
        secretDigest,
        datastores,
        rateLimitPerMinute: input.rate_limit_per_minute ?? null,
        createdBy: auditActor(principal),
      });
      await recordAudit(tx, {
        action: 'api-key.issue',
        actor: auditActor(principal),
        ...origin,
        details: { api_key_id: id, datastores, rate_limit_per_minute: row.rate_limit_per_minute },
      });
      return { ...keyView(row), key };
    });
  }

  async listKeys(): Promise<ApiKeyView[]> {
    return (await apiKeyRepository.list(this.#db)).map(keyView);
  }

  async revokeKey(principal: Principal, id: string, origin: AuditOrigin) {
    await this.#db.transaction(async (tx) => {
      if (!(await apiKeyRepository.remove(tx, id))) throw notFound(`No API key with id ${id}.`);
      await recordAudit(tx, {
        action: 'api-key.revoke',
        actor: auditActor(principal),
        ...origin,
        details: { api_key_id: id },
      });
      await apiKeyRepository.announceChange(tx, id);
    });
    this.#keysChanged(id);
  }

  /** The switch as every API process sees it, read again at most once a second. */
  async maintenance(): Promise<MaintenanceView> {
    const cached = this.#maintenance;
    if (cached && Date.now() - cached.readAt < MAINTENANCE_CACHE_MS) return cached.view;
    const row = await settingsRepository.maintenance(this.#db);
    const view = {
      enabled: row.enabled,
      updated_at: row.updated_at ? new Date(row.updated_at).toISOString() : null,
    };
    this.#maintenance = { view, readAt: Date.now() };
    return view;
  }

  async setMaintenance(
    principal: Principal,
    enabled: boolean,
    origin: AuditOrigin,
  ): Promise<MaintenanceView> {
    const row = await this.#db.transaction(async (tx) => {
      const saved = await settingsRepository.setMaintenance(tx, enabled);
      await recordAudit(tx, {
        action: 'maintenance.set',
        actor: auditActor(principal),
        ...origin,
        details: { enabled },
      });
      return saved;
    });
    const view = { enabled: row.enabled, updated_at: new Date(row.updated_at).toISOString() };
    this.#maintenance = { view, readAt: Date.now() };
    return view;
  }

  async auditLog(filter: {
    datastore?: string;
    entity_id?: string;
    action?: string;
    actor?: string;
    from?: string;
    to?: string;
    page: number;
    size: number;
  }) {
    const { rows, total } = await listAudit(this.#db, {
      datastore: filter.datastore,
      entityId: filter.entity_id,
      action: filter.action,
      actor: filter.actor,
      from: filter.from === undefined ? undefined : new Date(filter.from),
      to: filter.to === undefined ? undefined : new Date(filter.to),
      page: filter.page,
      size: filter.size,
    });
    return pageOf(
      rows.map((row) => this.#auditView(row)),
      total,
      filter.page,
      filter.size,
    );
  }

  #auditView(row: AuditRecord) {
    const [entityId] = row.entity_ids;
    const recipient =
      row.recipient_sealed && row.datastore && entityId
        ? openRecipient(this.#keyring, row.datastore, entityId, row.recipient_sealed)
        : undefined;
    return {
      seq: Number(row.seq),
      at: new Date(row.at).toISOString(),
      action: row.action,
      datastore: row.datastore,
      entity_ids: row.entity_ids,
      actor: row.actor,
      request_id: row.request_id,
      client_address: row.client_address,
      details: row.details,
      ...(recipient ? { recipient } : {}),
    };
  }
}
