// The console's read-only view of a datastore's subject data (scope datastore:read): entity counts, a
// bounded page of entities showing attribute names only, and the reveal of one entity's values or one
// attribute's. Every reveal appends an audit entry naming who and which entity (and attribute), committed
// before the values are answered; the entry never holds a value. Nothing here changes subject data.
import { appendAudit, type AuditOrigin } from '../audit/audit-log.ts';
import { auditActor, type Principal } from '../auth/scopes.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Database } from '../db/database.ts';
import { invalid, notFound } from '../errors.ts';
import { pageOf } from '../validation/page.ts';
import { datastoreRepository } from './admin-repository.ts';
import { countEntities, countEntitiesOf, type EntityCount, listEntityPage } from './browse-repository.ts';
import { loadEntities } from './subject-store.ts';

/** How deep a browse may page: past this, find entities by id or identity through the API. */
export const MAX_BROWSE_OFFSET = 10_000;
export const MAX_BROWSE_PAGE_SIZE = 100;

export interface BrowsedEntity {
  id: string;
  name: string;
  created_at: string;
  parents: string[];
  attributes: { name: string; has_value: boolean }[];
  files: { name: string; size: number }[];
}

export interface RevealedEntity {
  id: string;
  name: string;
  attributes: { name: string; value: string | null }[];
  files: { name: string; file_name: string; content_type: string; size: number }[];
}

export class DatastoreBrowseService {
  readonly #db: Database;
  readonly #keyring: Keyring;

  constructor(db: Database, keyring: Keyring) {
    this.#db = db;
    this.#keyring = keyring;
  }

  async entityCounts(): Promise<Map<string, EntityCount>> {
    return countEntities(this.#db);
  }

  async listEntities(datastore: string, page: number, size: number) {
    const offset = (page - 1) * size;
    if (offset >= MAX_BROWSE_OFFSET) {
      throw invalid(
        `page must start before entity ${MAX_BROWSE_OFFSET}: browsing shows the first ${MAX_BROWSE_OFFSET} entities; find others by id or identity.`,
      );
    }
    await this.#assertDatastore(datastore);
    const [rows, counted] = await Promise.all([
      listEntityPage(this.#db, datastore, size, offset),
      countEntitiesOf(this.#db, datastore),
    ]);
    const items: BrowsedEntity[] = rows.map((row) => ({
      id: row.id,
      name: row.name,
      created_at: new Date(row.created_at).toISOString(),
      parents: row.parents,
      attributes: row.attributes.map(([name, hasValue]) => ({ name, has_value: hasValue })),
      files: row.files.map(([name, fileSize]) => ({ name, size: Number(fileSize) })),
    }));
    return { ...pageOf(items, counted.count, page, size), total_capped: counted.capped };
  }

  /**
   * One entity's values (all, or the one `attribute`), after its audit entry is committed: who, which
   * datastore, entity and attribute, and how many values were shown; never a value.
   */
  async reveal(
    principal: Principal,
    origin: AuditOrigin,
    datastore: string,
    entityId: string,
    attribute: string | undefined,
  ): Promise<RevealedEntity> {
    await this.#assertDatastore(datastore);
    const [entity] = await loadEntities(this.#db, this.#keyring, datastore, [entityId]);
    if (!entity) throw notFound(`No entity ${entityId} in datastore ${datastore}.`);
    const attributes =
      attribute === undefined
        ? entity.attributes
        : entity.attributes.filter((item) => item.name === attribute);
    const files =
      attribute === undefined ? entity.files : entity.files.filter((item) => item.name === attribute);
    if (attribute !== undefined && attributes.length + files.length === 0) {
      throw notFound(`Entity ${entity.id} has no attribute ${attribute}.`);
    }
    await appendAudit(this.#db, {
      action: 'entity.reveal',
      datastore,
      entityId: entity.id,
      actor: auditActor(principal),
      ...origin,
      details: { attribute: attribute ?? null, values_shown: attributes.length + files.length },
    });
    return {
      id: entity.id,
      name: entity.name,
      attributes,
      files: files.map((file) => ({
        name: file.name,
        file_name: file.fileName,
        content_type: file.contentType,
        size: file.size,
      })),
    };
  }

  async #assertDatastore(datastore: string) {
    if (!(await datastoreRepository.exists(this.#db, datastore))) {
      throw notFound(`No datastore named ${datastore}.`);
    }
  }
}
