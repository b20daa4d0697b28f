// The rules of the subject data API (the seed's eleven Area B endpoints), without HTTP: which calls are
// malformed (bad_request), which subject is missing (not_found), what each batch item answers, and the
// audit entry of every call (file attributes: subject-files.ts). Reads and writes go through
// subject-store.ts and subject-writes.ts, the same functions the privacy-request engine uses. Values are
// never written to the audit log or to errors.
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { appendAudit, recordAudit } from '../audit/audit-log.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Database, Queryable } from '../db/database.ts';
import { badRequest, notFound } from '../errors.ts';
import type { SarMailer } from '../mail/access-report-mail.ts';
import { sealRecipient } from './sealing.ts';
import {
  entityHeads,
  entityTables,
  isEntityId,
  loadEntities,
  loadEntitiesByIdentity,
  loadSubtrees,
  subtreeOf,
  takenEntityIds,
} from './subject-store.ts';
import type {
  CallContext,
  ItemError,
  EntityInput,
  CreatedItem,
  AttributeItemInput,
} from './subject-items.ts';
import {
  shown,
  missingEntity,
  entityView,
  parseQualifiedNames,
  attributeItemAnswers,
  duplicates,
} from './subject-items.ts';
import {
  deleteAttributes,
  deleteEntities,
  forgetEntities,
  insertEntities,
  type NewEntity,
  setAttributeValues,
} from './subject-writes.ts';

/**
 * An item's parents as reads answer them: each once, oldest first (then by id). A parent created earlier
 * in the same call has no head: it is created now, after every stored one.
 */
function oldestFirst(
  references: readonly { parentId: string; parentName: string }[],
  heads: ReadonlyMap<string, { createdMicros: bigint }>,
): { parentId: string; parentName: string }[] {
  const unique = new Map(
    references.map((reference) => {
      const parentId = reference.parentId.toLowerCase();
      return [parentId, { parentId, parentName: reference.parentName }];
    }),
  );
  const key = ({ parentId }: { parentId: string }) => [heads.get(parentId)?.createdMicros, parentId] as const;
  const before = (left: bigint | string | undefined, right: bigint | string | undefined) =>
    left === right ? 0 : left === undefined ? 1 : right === undefined || left < right ? -1 : 1;
  return [...unique.values()].sort((left, right) => {
    const [leftTime, leftId] = key(left);
    const [rightTime, rightId] = key(right);
    return before(leftTime, rightTime) || before(leftId, rightId);
  });
}

/**
 * How many entity creates run at once in a process; the others wait their turn without holding a
 * connection. A create of 100 entities costs about 14 ms of the API's CPU (sealing and indexing 500
 * values); ten at once made each turn of the event loop run several of them, and every other request of
 * the process waited up to 45 ms (the loop's p99). Two at once keep it under 20 ms at the same rows/s
 * (bench/README.md, issue 41). Two, not one, so that one create's round trips to PostgreSQL overlap
 * another's CPU.
 */
export const CONCURRENT_CREATES = 2;
const creating = pLimit(CONCURRENT_CREATES);

export class SubjectService {
  readonly #db: Database;
  readonly #keyring: Keyring;
  readonly #mailer: SarMailer;

  constructor(db: Database, keyring: Keyring, mailer: SarMailer) {
    this.#db = db;
    this.#keyring = keyring;
    this.#mailer = mailer;
  }

  async #requireRoot(
    tx: Queryable,
    ctx: CallContext,
    entityId: string,
  ): Promise<{ id: string; name: string }[]> {
    const tree = isEntityId(entityId) ? await subtreeOf(tx, ctx.datastore, [entityId]) : [];
    if (tree.length === 0) throw notFound(missingEntity(entityId, ctx.datastore));
    return tree;
  }

  /** /api/user/delete: each `<table>.<attribute>` off the entity and its descendants of that table. */
  async deleteUserAttributes(
    ctx: CallContext,
    input: { entityId: string; attributeNames: string | string[] },
  ) {
    const names = parseQualifiedNames(input.attributeNames);
    const rootId = input.entityId.toLowerCase();
    return this.#db.transaction(async (tx) => {
      const tree = await this.#requireRoot(tx, ctx, input.entityId);
      const items = names.flatMap(({ table, attribute }) =>
        tree
          .filter((entity) => entity.name === table)
          .map((entity) => ({ entityId: entity.id, name: attribute })),
      );
      const deleted = await deleteAttributes(tx, ctx.datastore, items);
      const attributeNames = names.map(({ table, attribute }) => `${table}.${attribute}`);
      await recordAudit(tx, {
        action: 'user.delete',
        datastore: ctx.datastore,
        entityId: rootId,
        actor: ctx.actor,
        requestId: ctx.requestId,
        clientAddress: ctx.clientAddress,
        details: { attribute_names: attributeNames, entities: tree.length, deleted },
      });
      return { entityId: rootId, attributeNames, deleted };
    });
  }

  /** /api/user/forget: the entity, every descendant, their attributes and files, in one transaction. */
  async forget(ctx: CallContext, input: { entityId: string }) {
    const rootId = input.entityId.toLowerCase();
    return this.#db.transaction(async (tx) => {
      const tree = await this.#requireRoot(tx, ctx, input.entityId);
      const erased = await forgetEntities(tx, ctx.datastore, [rootId]);
      await recordAudit(tx, {
        action: 'user.forget',
        datastore: ctx.datastore,
        entityIds: tree.map((entity) => entity.id),
        actor: ctx.actor,
        requestId: ctx.requestId,
        clientAddress: ctx.clientAddress,
        details: erased,
      });
      return { entityId: rootId, erased };
    });
  }

  /** /api/user/sar: the entity's tree as JSON, mailed to `email` when SMTP is configured. */
  async subjectAccessReport(ctx: CallContext, input: { entityId: string; email: string }) {
    const rootId = input.entityId.toLowerCase();
    const entities = await this.#db.transaction(async (tx) => {
      await this.#requireRoot(tx, ctx, input.entityId);
      return loadSubtrees(tx, this.#keyring, ctx.datastore, [rootId]);
    });
    const report = {
      entityId: rootId,
      datastore: ctx.datastore,
      generatedAt: new Date().toISOString(),
      entities: entities.map(entityView),
    };
    const delivery = await this.#mailer.send(input.email, report);
    await appendAudit(this.#db, {
      action: 'user.sar',
      datastore: ctx.datastore,
      entityId: rootId,
      entityIds: entities.map((entity) => entity.id),
      actor: ctx.actor,
      requestId: ctx.requestId,
      clientAddress: ctx.clientAddress,
      details: {
        entities: entities.length,
        attributes: entities.reduce((sum, entity) => sum + entity.attributes.length, 0),
        files: entities.reduce((sum, entity) => sum + entity.files.length, 0),
        mailed: delivery.mailed,
        ...(delivery.error ? { mail_error: delivery.error } : {}),
      },
      recipientSealed: sealRecipient(this.#keyring, ctx.datastore, rootId, input.email),
    });
    return {
      ...report,
      email: input.email,
      mailed: delivery.mailed,
      ...(delivery.error ? { mailError: delivery.error } : {}),
    };
  }

  /**
   * /api/entity/create: items in order; a failed item (taken id, bad parent) does not stop the others.
   * `alsoInTransaction` runs in the same transaction after the items, before the commit: `lethe import`
   * writes its checkpoint there, so a batch and its checkpoint commit together or not at all.
   */
  async createEntities(
    ctx: CallContext,
    items: EntityInput[],
    alsoInTransaction?: (tx: Queryable, results: CreatedItem[]) => Promise<void>,
  ): Promise<CreatedItem[]> {
    for (const item of items) {
      const repeated = duplicates((item.attributes ?? []).map((attribute) => attribute.name));
      if (repeated) throw badRequest(`The attribute name ${shown(repeated)} appears twice in one entity.`);
    }
    const clientIds = items.flatMap((item) => (item.id ? [item.id.toLowerCase()] : []));
    const repeatedId = duplicates(clientIds);
    if (repeatedId) throw badRequest(`The entity id ${shown(repeatedId)} appears twice in the request.`);

    return creating(() =>
      this.#db.transaction(async (tx) => {
        const taken = await takenEntityIds(tx, ctx.datastore, clientIds);
        const parentIds = items.flatMap((item) =>
          (item.references ?? []).map((reference) => reference.parentId),
        );
        const heads = await entityHeads(tx, ctx.datastore, parentIds);
        const tables = new Map([...heads].map(([id, head]) => [id, head.name]));
        const created: string[] = [];
        const toInsert: NewEntity[] = [];
        const results: CreatedItem[] = [];
        for (const item of items) {
          const id = item.id?.toLowerCase() ?? randomUUID();
          const references = (item.references ?? []).map((reference) => {
            const table = isEntityId(reference.parentId)
              ? tables.get(reference.parentId.toLowerCase())
              : undefined;
            let error: ItemError | null = null;
            if (table === undefined) {
              error = { code: 'unknown_parent', message: missingEntity(reference.parentId, ctx.datastore) };
            } else if (table !== reference.parentName) {
              error = {
                code: 'parent_name_mismatch',
                message: `The parent ${reference.parentId} is a ${table}, not a ${shown(reference.parentName)}.`,
              };
            }
            return { parentId: reference.parentId, parentName: reference.parentName, error };
          });
          let error: ItemError | null = references.find((reference) => reference.error)?.error ?? null;
          if (taken.has(id)) error = { code: 'conflict', message: `An entity with id ${id} already exists.` };
          if (!error) {
            toInsert.push({
              id,
              name: item.name,
              parents: oldestFirst(references, heads),
              attributes: item.attributes ?? [],
            });
            taken.add(id);
            tables.set(id, item.name);
            created.push(id);
          }
          results.push({
            id: error ? (item.id ?? null) : id,
            name: item.name,
            references,
            attributes: item.attributes ?? [],
            error,
          });
        }
        await insertEntities(tx, this.#keyring, ctx.datastore, toInsert);
        await recordAudit(tx, {
          action: 'entity.create',
          datastore: ctx.datastore,
          entityIds: created,
          actor: ctx.actor,
          requestId: ctx.requestId,
          clientAddress: ctx.clientAddress,
          details: { requested: items.length, created: created.length },
        });
        await alsoInTransaction?.(tx, results);
        return results;
      }),
    );
  }

  /** /api/entity/delete: the entities with their attributes and files; unknown ids answer an item error. */
  async deleteEntities(ctx: CallContext, ids: string[]) {
    return this.#db.transaction(async (tx) => {
      const deleted = await deleteEntities(tx, ctx.datastore, ids);
      await recordAudit(tx, {
        action: 'entity.delete',
        datastore: ctx.datastore,
        entityIds: [...deleted],
        actor: ctx.actor,
        requestId: ctx.requestId,
        clientAddress: ctx.clientAddress,
        details: { requested: ids.length, deleted: deleted.size },
      });
      return ids.map((id) => ({
        id,
        error: deleted.has(id.toLowerCase())
          ? null
          : { code: 'not_found' as const, message: missingEntity(id, ctx.datastore) },
      }));
    });
  }

  /** /api/attribute/delete: the named attributes that exist are removed; the entities stay. */
  async deleteAttributeItems(ctx: CallContext, items: AttributeItemInput<{ name: string }>[]) {
    return this.#db.transaction(async (tx) => {
      const tables = await entityTables(
        tx,
        ctx.datastore,
        items.map((item) => item.id),
      );
      const known = (id: string) => isEntityId(id) && tables.has(id.toLowerCase());
      const deleted = await deleteAttributes(
        tx,
        ctx.datastore,
        items
          .filter((item) => known(item.id))
          .flatMap((item) =>
            item.attributes.map((attribute) => ({ entityId: item.id, name: attribute.name })),
          ),
      );
      await recordAudit(tx, {
        action: 'attribute.delete',
        datastore: ctx.datastore,
        entityIds: items.filter((item) => known(item.id)).map((item) => item.id.toLowerCase()),
        actor: ctx.actor,
        requestId: ctx.requestId,
        clientAddress: ctx.clientAddress,
        details: { requested: items.length, deleted },
      });
      return attributeItemAnswers(items, known, ctx.datastore);
    });
  }

  /** /api/attribute/update: sets (or adds) the attributes' values. */
  async updateAttributeItems(
    ctx: CallContext,
    items: AttributeItemInput<{ name: string; value: string | null }>[],
  ) {
    for (const item of items) {
      const repeated = duplicates(item.attributes.map((attribute) => attribute.name));
      if (repeated)
        throw badRequest(`The attribute name ${shown(repeated)} appears twice for entity ${shown(item.id)}.`);
    }
    return this.#db.transaction(async (tx) => {
      const tables = await entityTables(
        tx,
        ctx.datastore,
        items.map((item) => item.id),
      );
      const known = (id: string) => isEntityId(id) && tables.has(id.toLowerCase());
      const updated = await setAttributeValues(
        tx,
        this.#keyring,
        ctx.datastore,
        items
          .filter((item) => known(item.id))
          .flatMap((item) =>
            item.attributes.map((attribute) => ({
              entityId: item.id,
              name: attribute.name,
              value: attribute.value,
            })),
          ),
      );
      await recordAudit(tx, {
        action: 'attribute.update',
        datastore: ctx.datastore,
        entityIds: items.filter((item) => known(item.id)).map((item) => item.id.toLowerCase()),
        actor: ctx.actor,
        requestId: ctx.requestId,
        clientAddress: ctx.clientAddress,
        details: { requested: items.length, updated },
      });
      return attributeItemAnswers(items, known, ctx.datastore);
    });
  }

  /** /api/entity/get-by-id */
  async getByIds(ctx: CallContext, ids: string[]) {
    // The read records itself in its own statement, committed before this resolves.
    const entities = await loadEntities(this.#db, this.#keyring, ctx.datastore, ids, {
      action: 'entity.get-by-id',
      datastore: ctx.datastore,
      actor: ctx.actor,
      requestId: ctx.requestId,
      clientAddress: ctx.clientAddress,
      details: { requested: ids.length },
    });
    const byId = new Map(entities.map((entity) => [entity.id, entity]));
    return ids.map((id) => {
      const entity = byId.get(id.toLowerCase());
      return entity
        ? { ...entityView(entity), error: null }
        : { id, error: { code: 'not_found' as const, message: missingEntity(id, ctx.datastore) } };
    });
  }

  /** /api/entity/get-by-identity: through the blind index; emails match case-insensitively. */
  async getByIdentities(ctx: CallContext, identities: string[]) {
    // As getByIds: the read's statement records it, each entity once.
    const matches = await loadEntitiesByIdentity(this.#db, this.#keyring, ctx.datastore, identities, {
      action: 'entity.get-by-identity',
      datastore: ctx.datastore,
      actor: ctx.actor,
      requestId: ctx.requestId,
      clientAddress: ctx.clientAddress,
      details: { requested: identities.length },
    });
    return identities.map((identity, index) => {
      const found = (matches[index] ?? []).map(entityView);
      return {
        identity,
        entities: found,
        error:
          found.length > 0
            ? null
            : {
                code: 'not_found' as const,
                message: `No entity in the datastore ${ctx.datastore} has this identity.`,
              },
      };
    });
  }
}
