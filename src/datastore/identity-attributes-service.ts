// Reading and declaring a datastore's identity attributes (`GET|PUT /v1/datastore/{name}/identities`,
// `lethe datastore identities`). A declaration is audited in the transaction that stores it. An empty
// declaration (`{}`) takes the datastore back to the default. No Fastify here.
import { type AuditOrigin, recordAudit } from '../audit/audit-log.ts';
import { auditActor, type Principal } from '../auth/scopes.ts';
import type { Database, Queryable } from '../db/database.ts';
import { notFound } from '../errors.ts';
import { datastoreRepository } from './admin-repository.ts';
import {
  DEFAULT_DECLARATION,
  type IdentityDeclaration,
  parseIdentityDeclaration,
} from './identity-attributes.ts';
import {
  identityAttributesRepository,
  type IdentityDeclarationRow,
} from './identity-attributes-repository.ts';

export interface IdentityAttributesView {
  datastore: string;
  /** False: nothing is declared and `identities` shows the default (`*` is any table). */
  declared: boolean;
  identities: IdentityDeclaration;
  updated_at: string | null;
}

function view(datastore: string, row: IdentityDeclarationRow | undefined): IdentityAttributesView {
  return row
    ? {
        datastore,
        declared: true,
        identities: row.declaration,
        updated_at: new Date(row.updated_at).toISOString(),
      }
    : { datastore, declared: false, identities: DEFAULT_DECLARATION, updated_at: null };
}

const missing = (name: string) => notFound(`No datastore named ${name}.`);

export class IdentityAttributesService {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async read(name: string): Promise<IdentityAttributesView> {
    if (!(await datastoreRepository.exists(this.#db, name))) throw missing(name);
    return view(name, await identityAttributesRepository.find(this.#db, name));
  }

  /** Validates `body` (422 naming the bad entry, nothing stored), stores it and audits it. */
  async declare(
    principal: Principal,
    name: string,
    body: unknown,
    origin: AuditOrigin,
  ): Promise<IdentityAttributesView> {
    const declaration = parseIdentityDeclaration(body);
    return this.#db.transaction(async (tx: Queryable) => {
      if (!(await datastoreRepository.holdExisting(tx, name))) throw missing(name);
      const reset = Object.keys(declaration).length === 0;
      const row = reset
        ? (await identityAttributesRepository.remove(tx, name), undefined)
        : await identityAttributesRepository.save(tx, name, declaration);
      await recordAudit(tx, {
        action: 'datastore.identities',
        datastore: name,
        actor: auditActor(principal),
        ...origin,
        details: { declared: !reset, identities: declaration },
      });
      return view(name, row);
    });
  }
}
