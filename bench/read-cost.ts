// What one audited read of one entity costs each side, alone: the statement get-by-id sends, executed
// `--executions` times on one connection inside a transaction that is rolled back (no commit, so no WAL
// flush: the CPU of the statement itself), for 2,000 users of five attributes. PostgreSQL's CPU is read
// from the backend's /proc/<pid>/stat, Lethe's from process.cpuUsage() (pg's parsing, the opening of the
// values, the answer's objects). CPU times hold on a busy machine far better than req/s do.
//   node bench/read-cost.ts [--before DIR] [--executions 4000]
// With --before (a checkout of an earlier build, e.g. `git worktree add /tmp/before <commit>`), the same
// reads run that build's loadEntities on the same entities put back into the earlier layout, in turn.
// The database is a fresh one on LETHE_BENCH_DATABASE_URL's server (default the machine's PostgreSQL).
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Keyring } from '../src/crypto/keyring.ts';
import type { Queryable } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { loadEntities } from '../src/datastore/subject-store.ts';
import { insertEntities } from '../src/datastore/subject-writes.ts';
import { toEarlierLayout } from '../test/helpers/earlier-layout.ts';
import { benchUser } from './lib/seed.ts';

const { values } = parseArgs({
  options: { before: { type: 'string' }, executions: { type: 'string', default: '4000' } },
});
const executions = Number(values.executions);
const serverUrl = process.env.LETHE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const name = `lethe_bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const url = new URL(serverUrl);
url.pathname = `/${name}`;
const db = await openPostgres(url.toString(), { kind: 'postgres' });
type Load = typeof loadEntities;

const entry = { action: 'entity.get-by-id', datastore: 'bench', actor: 'api-key:bench' };
/** One read of the entity `id`, checked. */
type Read = (tx: Queryable, id: string) => Promise<void>;
const lethe =
  (load: Load, keyring: Keyring, audited = true): Read =>
  async (tx, id) => {
    const found = await load(tx, keyring, 'bench', [id], audited ? entry : undefined);
    if (found.length !== 1 || found[0]?.attributes.length !== 5) throw new Error('the read found no entity');
  };
/** The audited baseline's statement (bench/lib/select-server.ts) on a table of the same ids. */
const AUDITED_BASELINE = `
  WITH wanted AS (SELECT id, value FROM bench_rows WHERE id = $1),
       logged AS (INSERT INTO bench_log (action, entity_ids, actor) SELECT 'entity.read', ARRAY[id::text], 'bench' FROM wanted)
  SELECT id, value FROM wanted`;
const baseline: Read = async (tx, id) => {
  if ((await tx.query(AUDITED_BASELINE, [id])).rows.length !== 1)
    throw new Error('the baseline found no row');
};

/** Backend and client CPU, in microseconds, per execution of `read` for each id in turn. */
async function measure(label: string, read: Read, ids: string[]) {
  const rollback = new Error('rolled back');
  let result = '';
  await db
    .transaction(async (tx: Queryable) => {
      const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const backendTicks = () => {
        const fields = readFileSync(`/proc/${rows[0]?.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
        return Number(fields[11]) + Number(fields[12]);
      };
      for (let index = 0; index < 500; index++) await read(tx, ids[index % ids.length] as string);
      const ticks = backendTicks();
      const client = process.cpuUsage();
      for (let index = 0; index < executions; index++) {
        await read(tx, ids[index % ids.length] as string);
      }
      const used = process.cpuUsage(client);
      const backend = ((backendTicks() - ticks) * 10_000) / executions;
      result = `${label.padEnd(44)} PostgreSQL ${backend.toFixed(0).padStart(4)} µs, Lethe ${((used.user + used.system) / executions).toFixed(0).padStart(4)} µs per read`;
      throw rollback;
    })
    .catch((error: unknown) => {
      if (error !== rollback) throw error;
    });
  process.stdout.write(`${result}\n`);
}

try {
  await migrate(db);
  const keyring = new Keyring(randomBytes(32));
  await db.query("INSERT INTO datastores (name) VALUES ('bench')");
  const ids: string[] = [];
  for (let batch = 0; batch < 4; batch++) {
    const users = Array.from({ length: 500 }, (_, index) => ({
      id: randomUUID(),
      parents: [],
      ...benchUser(batch * 500 + index),
    }));
    ids.push(...users.map((user) => user.id));
    await db.transaction((tx) => insertEntities(tx, keyring, 'bench', users));
  }
  await db.exec(`CREATE TABLE bench_rows (id uuid PRIMARY KEY, value bytea NOT NULL);
    CREATE TABLE bench_log (seq bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), action text NOT NULL,
                            entity_ids text[] NOT NULL, actor text NOT NULL)`);
  await db.query(
    'INSERT INTO bench_rows SELECT id, sha512(id::text::bytea) FROM unnest($1::uuid[]) AS t(id)',
    [ids],
  );
  await db.exec('VACUUM ANALYZE entities, entity_attributes, bench_rows');
  const before = values.before
    ? ((await import(path.resolve(values.before, 'src/datastore/subject-store.ts'))) as {
        loadEntities: Load;
      })
    : undefined;
  for (let round = 1; round <= 2; round++) {
    await measure(`round ${round}: the audited baseline's statement`, baseline, ids);
    await measure(`round ${round}: one document per entity (this build)`, lethe(loadEntities, keyring), ids);
    await measure(
      `round ${round}: the same without its audit entry`,
      lethe(loadEntities, keyring, false),
      ids,
    );
    if (!before) continue;
    await toEarlierLayout(db, 'bench');
    await db.exec('VACUUM ANALYZE entities, entity_attributes');
    await measure(
      `round ${round}: the earlier layout (${values.before})`,
      lethe(before.loadEntities, keyring),
      ids,
    );
    await db.query(`UPDATE entities e SET attributes = (SELECT jsonb_object_agg(a.name, translate(encode(a.value_sealed, 'base64'), E'\\n', ''))
                       FROM entity_attributes a WHERE a.datastore = e.datastore AND a.entity_id = e.id),
                     parents = '[]', files = '[]'`);
    await db.exec('VACUUM ANALYZE entities, entity_attributes');
  }
} finally {
  await db.close();
  await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
  await admin.end();
}
