// A process that runs the entity layout move and verification (src/datastore/entity-layout.ts), the code
// the worker runs, in small slow batches, for a test to kill it mid-way. Reads LETHE_TEST_LAYOUT_DATABASE_URL,
// LETHE_TEST_LAYOUT_KEY (hex), and the batch size and pause (ms) from its arguments.
import { Keyring } from '../../src/crypto/keyring.ts';
import { runLayoutMigration } from '../../src/datastore/entity-layout.ts';
import { openPostgres } from '../../src/db/postgres.ts';

const [batchSize = '25', pauseMs = '25'] = process.argv.slice(2);
const db = await openPostgres(process.env.LETHE_TEST_LAYOUT_DATABASE_URL as string, { kind: 'postgres' });
const running = runLayoutMigration(
  db,
  new Keyring(Buffer.from(process.env.LETHE_TEST_LAYOUT_KEY as string, 'hex')),
  {
    batchSize: Number(batchSize),
    pauseMs: Number(pauseMs),
    announce: (message) => process.stdout.write(`${message}\n`),
  },
);
const state = await running.finished;
process.stdout.write(`finished: ${JSON.stringify(state)}\n`);
await db.close();
