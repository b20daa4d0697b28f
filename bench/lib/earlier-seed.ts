// Users written straight into the layout before migration 029, as the store of an earlier release holds
// them: an entities row without a document, one entity_attributes row per attribute holding its sealed
// value and blind index (sealed and indexed exactly as that release's insertEntities did). What
// bench/layout-migration.ts moves.
import { randomUUID } from 'node:crypto';
import { Keyring } from '../../src/crypto/keyring.ts';
import { byteaArray } from '../../src/db/binary-array.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { blindIndex, sealAttributeValue } from '../../src/datastore/sealing.ts';
import { benchUser, SEED_ENTITIES_PER_BATCH } from './seed.ts';

/** Inserts `count` users into the datastore in the earlier layout; answers every 100th id. */
export async function seedEarlierUsers(options: {
  databaseUrl: string;
  encryptionKey: Buffer;
  datastore: string;
  count: number;
  lanes?: number;
  progress?: (seeded: number) => void;
}): Promise<string[]> {
  const db = await openPostgres(options.databaseUrl, { kind: 'postgres' });
  const keyring = new Keyring(options.encryptionKey);
  const sample: string[] = [];
  let next = 0;
  let seeded = 0;
  const lane = async () => {
    while (next < options.count) {
      const start = next;
      const end = Math.min(options.count, start + SEED_ENTITIES_PER_BATCH);
      next = end;
      const ids: string[] = [];
      const rows: { id: string; name: string; sealed: Buffer; index: Buffer }[] = [];
      for (let index = start; index < end; index += 1) {
        const id = randomUUID();
        ids.push(id);
        if (index % 100 === 0) sample.push(id);
        for (const { name, value } of benchUser(index).attributes) {
          rows.push({
            id,
            name,
            sealed: sealAttributeValue(keyring, options.datastore, id, name, value),
            index: blindIndex(keyring, options.datastore, value),
          });
        }
      }
      await db.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO entities (id, datastore, name) SELECT id, $1, 'user' FROM unnest($2::uuid[]) AS t(id)`,
          [options.datastore, ids],
        );
        await tx.query(
          `INSERT INTO entity_attributes (entity_id, name, datastore, value_sealed, blind_index)
           SELECT entity_id, name, $1, value_sealed, blind_index
             FROM unnest($2::uuid[], $3::text[], $4::bytea[], $5::bytea[]) AS t(entity_id, name, value_sealed, blind_index)`,
          [
            options.datastore,
            rows.map((row) => row.id),
            rows.map((row) => row.name),
            byteaArray(rows.map((row) => row.sealed)),
            byteaArray(rows.map((row) => row.index)),
          ],
        );
      });
      seeded += end - start;
      options.progress?.(seeded);
    }
  };
  try {
    await Promise.all(Array.from({ length: options.lanes ?? 3 }, lane));
    // As migration 029 finds a store that holds entities: the move has everything left to do.
    await db.query(
      `UPDATE entity_layout_migration SET phase = 'move', moved = 0, verified = 0, mismatched = 0,
              mismatched_ids = '{}', checkpoint_datastore = NULL, checkpoint_id = NULL, started_at = NULL,
              moved_at = NULL, finished_at = NULL`,
    );
    await db.exec('VACUUM (ANALYZE) entities, entity_attributes');
    await db.exec('CHECKPOINT');
  } finally {
    await db.close();
  }
  return sample;
}
