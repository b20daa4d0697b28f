// SCIM 2.0 (RFC 7643 resources, RFC 7644 protocol) for the company's identity provider: it provisions
// operators (Users, users.ts) and their groups (Groups, groups.ts), whose display names map to roles through
// the role map. The protocol's shared parsing (schemas, PatchOps, filters, paging, errors) is protocol.ts.
// Only what SCIM asks is done here; the operators' table stays the operators' repository's.
import type { Database } from '../db/database.ts';
import type { OperatorService } from '../operators/service.ts';
import { ScimGroups } from './groups.ts';
import { ScimUsers } from './users.ts';

export class ScimService {
  readonly users: ScimUsers;
  readonly groups: ScimGroups;

  constructor(db: Database, operators: OperatorService) {
    this.users = new ScimUsers(db);
    this.groups = new ScimGroups(db, operators);
  }
}
