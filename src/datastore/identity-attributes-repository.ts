// SQL of the table datastore_identity_attributes: the declaration of which attributes of a datastore hold
// which identity kind. Its only writer; the declaration is validated by identity-attributes.ts first.
import type { Queryable } from '../db/database.ts';
import type { IdentityDeclaration } from './identity-attributes.ts';

export interface IdentityDeclarationRow {
  declaration: IdentityDeclaration;
  updated_at: Date;
}

export const identityAttributesRepository = {
  async find(db: Queryable, datastore: string): Promise<IdentityDeclarationRow | undefined> {
    const { rows } = await db.query<IdentityDeclarationRow>(
      'SELECT declaration, updated_at FROM datastore_identity_attributes WHERE datastore = $1',
      [datastore],
    );
    return rows[0];
  },

  async save(
    db: Queryable,
    datastore: string,
    declaration: IdentityDeclaration,
  ): Promise<IdentityDeclarationRow> {
    const { rows } = await db.query<IdentityDeclarationRow>(
      `INSERT INTO datastore_identity_attributes (datastore, declaration, updated_at) VALUES ($1, $2, now())
       ON CONFLICT (datastore) DO UPDATE SET declaration = EXCLUDED.declaration, updated_at = now()
       RETURNING declaration, updated_at`,
      [datastore, JSON.stringify(declaration)],
    );
    return rows[0] as IdentityDeclarationRow;
  },

  /** Back to the default; answers whether there was a declaration. */
  async remove(db: Queryable, datastore: string): Promise<boolean> {
    const removed = await db.query('DELETE FROM datastore_identity_attributes WHERE datastore = $1', [
      datastore,
    ]);
    return removed.rowCount > 0;
  },
};
