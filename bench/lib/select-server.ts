// Baselines: Fastify + pg with a pool of 10 (Lethe's pool size). Each request reads one row by primary
// key; with BENCH_SELECT_LOG_TABLE set, the same statement also appends one entry to that log and the
// answer waits for its commit: the durable work every audited read of Lethe does, in one statement and
// one commit. The tables are made by the caller (bench/lib/baselines.ts); the body names the row, as
// get-by-id's does.
import Fastify from 'fastify';
import pg from 'pg';

const table = process.env.BENCH_SELECT_TABLE as string;
const logTable = process.env.BENCH_SELECT_LOG_TABLE;
const pool = new pg.Pool({ connectionString: process.env.BENCH_SELECT_DATABASE_URL, max: 10 });
const statement = logTable
  ? `WITH wanted AS (SELECT id, value FROM ${table} WHERE id = $1),
          logged AS (INSERT INTO ${logTable} (action, entity_ids, actor)
                     SELECT 'entity.read', ARRAY[id::text], 'bench' FROM wanted)
     SELECT id, value FROM wanted`
  : `SELECT id, value FROM ${table} WHERE id = $1`;

const app = Fastify({ logger: false });
app.get('/', async () => ({ ready: true }));
app.post<{ Body: { id: string } }>('/', async (request) => {
  const { rows } = await pool.query<{ id: string; value: Buffer }>({
    name: 'bench_select_by_id',
    text: statement,
    values: [request.body.id],
  });
  const row = rows[0];
  return row ? { id: row.id, value: row.value.toString('base64') } : { id: null };
});
app.addHook('onClose', async () => pool.end());
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
