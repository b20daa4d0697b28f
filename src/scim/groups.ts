// SCIM Groups (RFC 7643 section 4.2): the identity provider's groups, whose display names map to roles
// through the role map. A change of a group's name or members is audited, and its members (before and
// after) get the roles their groups now map to, their live sessions included, in the same transaction.
import { recordAudit } from '../audit/audit-log.ts';
import type { Database, Queryable } from '../db/database.ts';
import { operatorRepository } from '../operators/repository.ts';
import type { OperatorService } from '../operators/service.ts';
import {
  GROUP_SCHEMA,
  invalidValue,
  type Json,
  type ListQuery,
  listResponse,
  notFound,
  objectValue,
  optionalText,
  PATCH_SCHEMA,
  paging,
  parseFilter,
  patchOperations,
  requireSchema,
  type ScimCaller,
  ScimError,
} from './protocol.ts';
import { type GroupRow, groupRepository } from './repository.ts';

export class ScimGroups {
  readonly #db: Database;
  readonly #operators: OperatorService;

  constructor(db: Database, operators: OperatorService) {
    this.#db = db;
    this.#operators = operators;
  }

  async create(by: ScimCaller, body: Json): Promise<Json> {
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

  async get(by: ScimCaller, id: string): Promise<Json> {
    return groupResource(await this.#group(this.#db, id), by.base);
  }

  async list(by: ScimCaller, query: ListQuery): Promise<Json> {
    const filter = parseFilter(query.filter, 'displayName');
    const { offset, limit, startIndex } = paging(query);
    const { rows, total } = await groupRepository.page(this.#db, { displayName: filter, offset, limit });
    return listResponse(
      rows.map((row) => groupResource(row, by.base, query.excludedAttributes)),
      total,
      startIndex,
    );
  }

  async replace(by: ScimCaller, id: string, body: Json): Promise<Json> {
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

  async patch(by: ScimCaller, id: string, body: Json): Promise<Json> {
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

  async remove(by: ScimCaller, id: string): Promise<void> {
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
    await this.#operators.providerAccounts.refreshRoles(tx, members, by.actor, by.origin);
  }
}

function groupName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 500) {
    throw invalidValue('displayName must be a string of 1 to 500 characters.');
  }
  return value.trim();
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
