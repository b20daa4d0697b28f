// The fast seeding path for the large datastore figures: entities written straight into the bench
// database through the store's own insertEntities (so values are sealed and blind-indexed exactly as
// the API does), in batches, without HTTP, on either engine (the bench joins the embedded server).
import { randomUUID } from 'node:crypto';
import { Keyring } from '../../src/crypto/keyring.ts';
import { insertEntities, type NewEntity } from '../../src/datastore/subject-writes.ts';
import { openPostgres } from '../../src/db/postgres.ts';

export const SEED_ENTITIES_PER_BATCH = 1000;

/** The user entity the benchmarks store: five attributes, the email being the identity. */
export function benchUser(index: number) {
  return {
    name: 'user',
    attributes: [
      { name: 'email', value: `user${index}@bench.example` },
      { name: 'first_name', value: `First${index}` },
      { name: 'last_name', value: 'Benchmark' },
      { name: 'phone', value: `+1555${String(index).padStart(7, '0')}` },
      { name: 'created', value: '2026-01-01T00:00:00Z' },
    ],
  };
}

/** Inserts users numbered [from, to) into the datastore, `lanes` batches at a time. */
export async function seedUsers(options: {
  databaseUrl: string;
  encryptionKey: Buffer;
  datastore: string;
  from: number;
  to: number;
  lanes?: number;
}): Promise<void> {
  const db = await openPostgres(options.databaseUrl, { kind: 'postgres' });
  const keyring = new Keyring(options.encryptionKey);
  let next = options.from;
  const lane = async () => {
    while (next < options.to) {
      const start = next;
      const end = Math.min(options.to, start + SEED_ENTITIES_PER_BATCH);
      next = end;
      const batch: NewEntity[] = [];
      for (let index = start; index < end; index += 1) {
        batch.push({ id: randomUUID(), parents: [], ...benchUser(index) });
      }
      await db.transaction((tx) => insertEntities(tx, keyring, options.datastore, batch));
    }
  };
  try {
    await Promise.all(Array.from({ length: options.lanes ?? 3 }, lane));
    // What autovacuum does after a bulk load, done at once: with the statistics of a datastore 100 times
    // smaller, the planner scans the whole datastore (entities_datastore_idx) instead of probing the
    // primary key, and forget of 1,000 entities took 2.7 s instead of 0.2 s at 1,000,000 entities. The
    // vacuum also sets the hint bits and the visibility map that the first reads would otherwise write.
    await db.exec('VACUUM (ANALYZE) entities, entity_attributes, entity_references');
    // The figures that follow are of a datastore at rest: without it, the checkpoint of the seed's
    // gigabytes of WAL falls into the latencies measured next (the p99 of get-by-identity at 1,000,000).
    await db.exec('CHECKPOINT');
  } finally {
    await db.close();
  }
}
