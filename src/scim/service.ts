// SCIM 2.0 (RFC 7643 resources, RFC 7644 protocol) for the company's identity provider: it provisions
// operators (Users) and their groups (Groups), whose display names map to roles through the role map.
// Deactivating (`active: false`) or deleting a User ends its sessions and disables the clients acting for
// it in the same transaction, so the removal holds from the provider's next second on; both are audited,
// and the person's past actions keep their name. Only what SCIM asks is done here; the operators' table
// stays the operators' repository's.
import { type AuditOrigin, recordAudit } from '../audit/audit-log.ts';
import { operatorAccess } from '../auth/service.ts';
import type { Database, Queryable } from '../db/database.ts';
import { type OperatorRow, operatorRepository } from '../operators/repository.ts';
import { type OperatorService, USERNAME_PATTERN } from '../operators/service.ts';
import { isEmailAddress } from '../validation/email.ts';
import { type GroupRow, groupRepository } from './repository.ts';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const MAX_RESULTS = 200;

/** An error in SCIM's shape (RFC 7644 section 3.12). */
export class ScimError extends Error {
  override name = 'ScimError';
  readonly status: number;
  readonly scimType: string | undefined;

  constructor(status: number, detail: string, scimType?: string) {
    super(detail);
    this.status = status;
    this.scimType = scimType;
  }
}

const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue');
const notFound = (what: string, id: string) => new ScimError(404, `No ${what} with id ${id.slice(0, 100)}.`);

type Json = Record<string, unknown>;

export interface ScimCaller {
  /** The audit's actor: `client:<id>` of the provider's client. */
  actor: string;
  origin: AuditOrigin;
  /** Where the resources live (`<public url>/scim/v2`), for meta.location. */
  base: string;
}

export class ScimService {
  readonly #db: Database;
  readonly #operators: OperatorService;

  constructor(db: Database, operators: OperatorService) {
    this.#db = db;
    this.#operators = operators;
  }

  // Users

  async createUser(by: ScimCaller, body: Json): Promise<Json> {
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

  async getUser(by: ScimCaller, id: string): Promise<Json> {
    const row = await operatorRepository.findByScimId(this.#db, id);
    if (!row) throw notFound('User', id);
    return userResource(row, by.base);
  }

  async listUsers(by: ScimCaller, query: ListQuery): Promise<Json> {
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
  async replaceUser(by: ScimCaller, id: string, body: Json): Promise<Json> {
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
  async patchUser(by: ScimCaller, id: string, body: Json): Promise<Json> {
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

  async deleteUser(by: ScimCaller, id: string): Promise<void> {
    await this.#db.transaction(async (tx) => {
      const row = await operatorRepository.findByScimId(tx, id, true);
      if (!row) throw notFound('User', id);
      const revoked = await operatorAccess.revoke(tx, row.username);
      await operatorRepository.remove(tx, row.username);
      await recordAudit(tx, {
        action: 'operator.delete',
        actor: by.actor,
        ...by.origin,
        details: {
          username: row.username,
          sessions_ended: revoked.sessions,
          clients_disabled: revoked.clients,
        },
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
          details: {
            username: row.username,
            sessions_ended: revoked.sessions,
            clients_disabled: revoked.clients,
          },
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

  // Groups

  async createGroup(by: ScimCaller, body: Json): Promise<Json> {
    requireSchema(body, GROUP_SCHEMA);
    const displayName = groupName(body.displayName);
    const externalId = optionalText(body.externalId, 'externalId');
    return this.#db.transaction(async (tx) => {
      const id = await groupRepository.insert(tx, { displayName, externalId });
      if (!id) throw new ScimError(409, `A group named ${displayName} already exists.`, 'uniqueness');
      const members = await membersOf(tx, body.members);
      await groupRepository.addMembers(tx, id, members);
      await this.#groupChanged(tx, by, 'scim-group.create', id, displayName, members);
      return groupResource(await this.#group(tx, id), by.base);
    });
  }

  async getGroup(by: ScimCaller, id: string): Promise<Json> {
    return groupResource(await this.#group(this.#db, id), by.base);
  }

  async listGroups(by: ScimCaller, query: ListQuery): Promise<Json> {
    const filter = parseFilter(query.filter, 'displayName');
    const { offset, limit, startIndex } = paging(query);
    const { rows, total } = await groupRepository.page(this.#db, { displayName: filter, offset, limit });
    return listResponse(
      rows.map((row) => groupResource(row, by.base, query.excludedAttributes)),
      total,
      startIndex,
    );
  }

  async replaceGroup(by: ScimCaller, id: string, body: Json): Promise<Json> {
    requireSchema(body, GROUP_SCHEMA);
    const displayName = groupName(body.displayName);
    const externalId = optionalText(body.externalId, 'externalId');
    return this.#db.transaction(async (tx) => {
      const group = await this.#group(tx, id, true);
      if (!(await groupRepository.rename(tx, id, { displayName, externalId }))) {
        throw new ScimError(409, `A group named ${displayName} already exists.`, 'uniqueness');
      }
      const before = group.members.map((member) => member.username);
      const after = await membersOf(tx, body.members);
      await groupRepository.removeMembers(
        tx,
        id,
        before.filter((username) => !after.includes(username)),
      );
      await groupRepository.addMembers(tx, id, after);
      await this.#groupChanged(tx, by, 'scim-group.update', id, displayName, [...before, ...after]);
      return groupResource(await this.#group(tx, id), by.base);
    });
  }

  async patchGroup(by: ScimCaller, id: string, body: Json): Promise<Json> {
    requireSchema(body, PATCH_SCHEMA);
    const operations = patchOperations(body);
    return this.#db.transaction(async (tx) => {
      const group = await this.#group(tx, id, true);
      let displayName = group.display_name;
      let externalId = group.external_id;
      const touched = new Set<string>();
      for (const operation of operations) {
        const path = operation.path?.trim();
        const memberFilter = path ? /^members\[\s*value\s+eq\s+"([^"]*)"\s*\]$/i.exec(path) : null;
        if (memberFilter && operation.op === 'remove') {
          const [username] = await membersOf(tx, [{ value: memberFilter[1] }], true);
          if (username) {
            await groupRepository.removeMembers(tx, id, [username]);
            touched.add(username);
          }
          continue;
        }
        const values: Json =
          path === undefined
            ? objectValue(operation.value, 'An operation without a path needs an object value.')
            : { [path]: operation.value };
        for (const [attribute, value] of Object.entries(values)) {
          const name = attribute.toLowerCase();
          if (name === 'displayname') {
            if (operation.op === 'remove') throw new ScimError(400, 'displayName is required.', 'mutability');
            displayName = groupName(value);
          } else if (name === 'externalid') {
            externalId = operation.op === 'remove' ? null : optionalText(value, 'externalId');
          } else if (name === 'members') {
            const current = (await this.#group(tx, id)).members.map((member) => member.username);
            if (operation.op === 'remove') {
              // Without values: every member goes; with values (Entra ID's form): those.
              const leaving =
                value === undefined || value === null ? current : await membersOf(tx, value, true);
              await groupRepository.removeMembers(tx, id, leaving);
              for (const username of leaving) touched.add(username);
            } else {
              const joining = await membersOf(tx, value);
              if (operation.op === 'replace') {
                const leaving = current.filter((username) => !joining.includes(username));
                await groupRepository.removeMembers(tx, id, leaving);
                for (const username of leaving) touched.add(username);
              }
              await groupRepository.addMembers(tx, id, joining);
              for (const username of joining) touched.add(username);
            }
          } else {
            throw new ScimError(
              400,
              `The attribute ${attribute.slice(0, 100)} cannot be changed here.`,
              'invalidPath',
            );
          }
        }
      }
      if (displayName !== group.display_name || externalId !== group.external_id) {
        if (!(await groupRepository.rename(tx, id, { displayName, externalId }))) {
          throw new ScimError(409, `A group named ${displayName} already exists.`, 'uniqueness');
        }
        for (const member of group.members) touched.add(member.username);
      }
      await this.#groupChanged(tx, by, 'scim-group.update', id, displayName, [...touched]);
      return groupResource(await this.#group(tx, id), by.base);
    });
  }

  async deleteGroup(by: ScimCaller, id: string): Promise<void> {
    await this.#db.transaction(async (tx) => {
      const group = await this.#group(tx, id, true);
      await groupRepository.remove(tx, id);
      await this.#groupChanged(
        tx,
        by,
        'scim-group.delete',
        id,
        group.display_name,
        group.members.map((member) => member.username),
      );
    });
  }

  async #group(db: Queryable, id: string, lock = false): Promise<GroupRow> {
    const group = await groupRepository.find(db, id, lock);
    if (!group) throw notFound('Group', id);
    return group;
  }

  /** Audits the change and gives the members whose groups changed the roles these now map to. */
  async #groupChanged(
    tx: Queryable,
    by: ScimCaller,
    action: string,
    id: string,
    displayName: string,
    members: readonly string[],
  ) {
    await recordAudit(tx, {
      action,
      actor: by.actor,
      ...by.origin,
      details: { id, display_name: displayName, members: [...new Set(members)] },
    });
    await this.#operators.refreshProviderRoles(tx, members, by.actor, by.origin);
  }
}

interface UserChanges {
  email?: string | null;
  displayName?: string | null;
  externalId?: string | null;
  active?: boolean;
}

export interface ListQuery {
  filter?: string;
  startIndex?: number;
  count?: number;
  excludedAttributes?: string;
}

function requireSchema(body: Json, schema: string) {
  if (!Array.isArray(body.schemas) || !body.schemas.includes(schema)) {
    throw new ScimError(400, `The body's schemas must include ${schema}.`, 'invalidSyntax');
  }
}

function objectValue(value: unknown, message: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidValue(message);
  return value as Json;
}

function optionalText(value: unknown, name: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > 500)
    throw invalidValue(`${name} must be a string of at most 500 characters.`);
  return value;
}

function groupName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 500) {
    throw invalidValue('displayName must be a string of 1 to 500 characters.');
  }
  return value.trim();
}

function checkUserName(value: string): string {
  const username = value.trim().toLowerCase();
  if (!new RegExp(USERNAME_PATTERN).test(username)) {
    throw invalidValue(
      'userName must be 1 to 100 letters, digits, ".", "_", "@" or "-", starting with a letter or digit.',
    );
  }
  return username;
}

function booleanOf(value: unknown, name: string): boolean {
  // Entra ID sends "True"/"False" as strings in PATCH.
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw invalidValue(`${name} must be true or false.`);
}

/** The primary (else the first) work address of `emails`. */
function emailOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw invalidValue('emails must be a list of {value, type, primary}.');
  const entries = value.filter((entry): entry is Json => typeof entry === 'object' && entry !== null);
  const chosen = entries.find((entry) => entry.primary === true) ?? entries[0];
  if (!chosen) return null;
  if (typeof chosen.value !== 'string' || !isEmailAddress(chosen.value) || chosen.value.length > 254) {
    throw invalidValue('emails[].value must be an email address.');
  }
  return chosen.value;
}

function displayNameOf(body: Json): string | null {
  if (typeof body.displayName === 'string' && body.displayName.trim())
    return body.displayName.trim().slice(0, 500);
  const name = body.name;
  if (typeof name === 'object' && name !== null) {
    const parts = name as Json;
    if (typeof parts.formatted === 'string' && parts.formatted.trim())
      return parts.formatted.trim().slice(0, 500);
    const joined = [parts.givenName, parts.familyName].filter((part) => typeof part === 'string').join(' ');
    if (joined.trim()) return joined.trim().slice(0, 500);
  }
  return null;
}

function userFields(body: Json): UserChanges & { userName?: string } {
  if (body.userName !== undefined && typeof body.userName !== 'string')
    throw invalidValue('userName must be a string.');
  return {
    userName: body.userName as string | undefined,
    email: emailOf(body.emails),
    displayName: displayNameOf(body),
    externalId: optionalText(body.externalId, 'externalId'),
    active: body.active === undefined ? undefined : booleanOf(body.active, 'active'),
  };
}

/** Core User attributes (RFC 7643 section 4.1) that Lethe does not keep: accepted and left alone. */
const UNKEPT_ATTRIBUTES = new Set([
  'nickname',
  'profileurl',
  'title',
  'usertype',
  'preferredlanguage',
  'locale',
  'timezone',
  'phonenumbers',
  'ims',
  'photos',
  'addresses',
  'entitlements',
  'roles',
  'x509certificates',
  'password',
]);

function applyUserPath(changes: UserChanges, row: OperatorRow, path: string, value: unknown, op: string) {
  const name = path.trim().toLowerCase();
  if (UNKEPT_ATTRIBUTES.has(name.split(/[.[]/)[0] ?? '')) return;
  if (name === 'active') changes.active = op === 'remove' ? false : booleanOf(value, 'active');
  else if (name === 'displayname' || name === 'name.formatted') {
    changes.displayName = op === 'remove' ? null : optionalText(value, path);
  } else if (name === 'name') changes.displayName = displayNameOf({ name: value });
  else if (name === 'externalid') changes.externalId = op === 'remove' ? null : optionalText(value, path);
  else if (name === 'emails') changes.email = op === 'remove' ? null : emailOf(value);
  else if (/^emails\[type eq "work"\]\.value$/i.test(path.trim())) {
    changes.email = op === 'remove' ? null : emailOf([{ value, primary: true }]);
  } else if (name === 'username') {
    if (typeof value !== 'string' || checkUserName(value) !== row.username) {
      throw new ScimError(400, 'userName cannot change here: create a new user instead.', 'mutability');
    }
  } else {
    throw new ScimError(400, `The attribute ${path.slice(0, 100)} cannot be changed here.`, 'invalidPath');
  }
}

function patchOperations(body: Json): { op: 'add' | 'replace' | 'remove'; path?: string; value?: unknown }[] {
  const operations = body.Operations;
  if (!Array.isArray(operations) || operations.length === 0 || operations.length > 100) {
    throw new ScimError(400, 'Operations must list 1 to 100 operations.', 'invalidSyntax');
  }
  return operations.map((entry: unknown) => {
    const operation = objectValue(entry, 'Each operation must be an object with op, path and value.');
    const op = typeof operation.op === 'string' ? operation.op.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw new ScimError(400, 'op must be add, replace or remove.', 'invalidSyntax');
    }
    if (operation.path !== undefined && typeof operation.path !== 'string') {
      throw new ScimError(400, 'path must be a string.', 'invalidPath');
    }
    if (op === 'remove' && operation.path === undefined) {
      throw new ScimError(400, 'A remove operation needs a path.', 'noTarget');
    }
    return { op, path: operation.path as string | undefined, value: operation.value };
  });
}

/** The usernames of `members` ([{value: <User id>}]); an unknown id is 400 unless `skipUnknown`. */
async function membersOf(db: Queryable, members: unknown, skipUnknown = false): Promise<string[]> {
  if (members === undefined || members === null) return [];
  if (!Array.isArray(members)) throw invalidValue('members must be a list of {value: <User id>}.');
  const ids = members.map((member: unknown) => {
    const value = (member as Json | null)?.value;
    if (typeof value !== 'string') throw invalidValue('members[].value must be the id of a User.');
    return value;
  });
  const found = await operatorRepository.findManyByScimId(db, ids);
  if (!skipUnknown) {
    const known = new Set(found.map((row) => row.scim_id));
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length > 0) throw invalidValue(`No User with id ${unknown[0]?.slice(0, 100)}.`);
  }
  return found.map((row) => row.username);
}

/** The value of a supported filter (`<attribute> eq "<value>"`); 400 invalidFilter for anything else. */
function parseFilter(filter: string | undefined, attribute: string): string | undefined {
  if (filter === undefined || filter.trim() === '') return undefined;
  const match = /^\s*(\w+)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i.exec(filter);
  if (!match || match[1]?.toLowerCase() !== attribute.toLowerCase()) {
    throw new ScimError(
      400,
      `Only the filter ${attribute} eq "<value>" is supported here; got: ${filter.slice(0, 100)}`,
      'invalidFilter',
    );
  }
  return (match[2] as string).replace(/\\(.)/g, '$1');
}

function paging(query: ListQuery) {
  const startIndex = Math.max(1, query.startIndex ?? 1);
  const limit = Math.min(MAX_RESULTS, Math.max(0, query.count ?? 100));
  return { startIndex, offset: startIndex - 1, limit };
}

function listResponse(resources: Json[], total: number, startIndex: number): Json {
  return {
    schemas: [LIST_SCHEMA],
    totalResults: total,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

function userResource(row: OperatorRow, base: string): Json {
  return {
    schemas: [USER_SCHEMA],
    id: row.scim_id,
    ...(row.external_id ? { externalId: row.external_id } : {}),
    userName: row.username,
    ...(row.display_name ? { displayName: row.display_name, name: { formatted: row.display_name } } : {}),
    ...(row.email ? { emails: [{ value: row.email, type: 'work', primary: true }] } : {}),
    active: row.active,
    groups: (row.scim_groups ?? []).map((display) => ({ display })),
    meta: {
      resourceType: 'User',
      created: row.created_at.toISOString(),
      lastModified: row.updated_at.toISOString(),
      location: `${base}/Users/${row.scim_id}`,
    },
  };
}

function groupResource(row: GroupRow, base: string, excludedAttributes?: string): Json {
  const withoutMembers = (excludedAttributes ?? '').toLowerCase().split(',').includes('members');
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    ...(row.external_id ? { externalId: row.external_id } : {}),
    displayName: row.display_name,
    ...(withoutMembers
      ? {}
      : {
          members: row.members.map((member) => ({
            value: member.value,
            display: member.username,
            $ref: `${base}/Users/${member.value}`,
          })),
        }),
    meta: {
      resourceType: 'Group',
      created: new Date(row.created_at).toISOString(),
      lastModified: new Date(row.updated_at).toISOString(),
      location: `${base}/Groups/${row.id}`,
    },
  };
}
