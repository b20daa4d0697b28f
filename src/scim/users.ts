// SCIM Users (RFC 7643 section 4.1) are Lethe's operators, provisioned by the company's identity provider.
// Deactivating (`active: false`) or deleting a User ends its sessions and disables the clients acting for
// it in the same transaction, so the removal holds from the provider's next second on; both are audited,
// and the person's past actions keep their name. The operators' table stays the operators' repository's.
import { recordAudit } from '../audit/audit-log.ts';
import { operatorAccess } from '../auth/service.ts';
import type { Database } from '../db/database.ts';
import { type OperatorRow, operatorRepository } from '../operators/repository.ts';
import {
  invalidValue,
  type Json,
  type ListQuery,
  listResponse,
  notFound,
  objectValue,
  PATCH_SCHEMA,
  paging,
  parseFilter,
  patchOperations,
  requireSchema,
  type ScimCaller,
  ScimError,
  USER_SCHEMA,
} from './protocol.ts';
import {
  applyUserPath,
  checkUserName,
  type UserChanges,
  userFields,
  userResource,
} from './user-attributes.ts';

export class ScimUsers {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async create(by: ScimCaller, body: Json): Promise<Json> {
    requireSchema(body, USER_SCHEMA);
    const fields = userFields(body);
    if (fields.userName === undefined) throw invalidValue('userName is required.');
    const username = checkUserName(fields.userName);
    return this.#db.transaction(async (tx) => {
      const row = await operatorRepository.insert(tx, {
        username,
        passwordHash: null,
        roles: [],
        email: fields.email ?? null,
        createdBy: by.actor,
        provider: 'scim',
        externalId: fields.externalId ?? null,
        displayName: fields.displayName ?? null,
        active: fields.active ?? true,
      });
      if (!row) throw new ScimError(409, `A user named ${username} already exists.`, 'uniqueness');
      await recordAudit(tx, {
        action: 'operator.create',
        actor: by.actor,
        ...by.origin,
        details: { username, provider: 'scim', active: row.active },
      });
      return userResource(row, by.base);
    });
  }

  async get(by: ScimCaller, id: string): Promise<Json> {
    const row = await operatorRepository.findByScimId(this.#db, id);
    if (!row) throw notFound('User', id);
    return userResource(row, by.base);
  }

  async list(by: ScimCaller, query: ListQuery): Promise<Json> {
    const filter = parseFilter(query.filter, 'userName');
    const { offset, limit, startIndex } = paging(query);
    const { rows, total } = await operatorRepository.page(this.#db, {
      username: filter?.toLowerCase(),
      offset,
      limit,
    });
    return listResponse(
      rows.map((row) => userResource(row, by.base)),
      total,
      startIndex,
    );
  }

  /** PUT: the User replaced by the body (userName cannot change: Lethe's names are its audit trail). */
  async replace(by: ScimCaller, id: string, body: Json): Promise<Json> {
    requireSchema(body, USER_SCHEMA);
    const fields = userFields(body);
    return this.#change(by, id, (row) => {
      if (fields.userName !== undefined && checkUserName(fields.userName) !== row.username) {
        throw new ScimError(400, 'userName cannot change here: create a new user instead.', 'mutability');
      }
      return {
        email: fields.email ?? null,
        displayName: fields.displayName ?? null,
        externalId: fields.externalId ?? null,
        active: fields.active ?? true,
      };
    });
  }

  /** PATCH with a PatchOp (RFC 7644 section 3.5.2): add, replace and remove of the supported attributes. */
  async patch(by: ScimCaller, id: string, body: Json): Promise<Json> {
    requireSchema(body, PATCH_SCHEMA);
    const operations = patchOperations(body);
    return this.#change(by, id, (row) => {
      const changes: UserChanges = {};
      for (const operation of operations) {
        const values: Json =
          operation.path === undefined
            ? objectValue(operation.value, 'An operation without a path needs an object value.')
            : { [operation.path]: operation.op === 'remove' ? null : operation.value };
        for (const [path, value] of Object.entries(values))
          applyUserPath(changes, row, path, value, operation.op);
      }
      return changes;
    });
  }

  async remove(by: ScimCaller, id: string): Promise<void> {
    await this.#db.transaction(async (tx) => {
      const row = await operatorRepository.findByScimId(tx, id, true);
      if (!row) throw notFound('User', id);
      const revoked = await operatorAccess.revoke(tx, row.username);
      await operatorRepository.remove(tx, row.username);
      await recordAudit(tx, {
        action: 'operator.delete',
        actor: by.actor,
        ...by.origin,
        details: revocationDetails(row.username, revoked),
      });
    });
  }

  async #change(by: ScimCaller, id: string, decide: (row: OperatorRow) => UserChanges): Promise<Json> {
    return this.#db.transaction(async (tx) => {
      const row = await operatorRepository.findByScimId(tx, id, true);
      if (!row) throw notFound('User', id);
      const changes = decide(row);
      const updated = await operatorRepository.update(tx, row.username, changes);
      if (!updated) throw notFound('User', id);
      if (row.active && changes.active === false) {
        // Removal: no session, no client acting for them, from this transaction's commit on.
        const revoked = await operatorAccess.revoke(tx, row.username);
        await recordAudit(tx, {
          action: 'operator.deactivate',
          actor: by.actor,
          ...by.origin,
          details: revocationDetails(row.username, revoked),
        });
      } else if (!row.active && changes.active === true) {
        await recordAudit(tx, {
          action: 'operator.reactivate',
          actor: by.actor,
          ...by.origin,
          details: { username: row.username },
        });
      } else {
        await recordAudit(tx, {
          action: 'operator.update',
          actor: by.actor,
          ...by.origin,
          details: { username: row.username, fields: Object.keys(changes) },
        });
      }
      const fresh = await operatorRepository.findByScimId(tx, id);
      return userResource(fresh ?? updated, by.base);
    });
  }
}

/** What the audit says of a User's removal: whose, and how many sessions and which clients it ended. */
function revocationDetails(username: string, revoked: { sessions: number; clients: string[] }) {
  return { username, sessions_ended: revoked.sessions, clients_disabled: revoked.clients };
}
