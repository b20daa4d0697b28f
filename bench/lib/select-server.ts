// Baseline: Fastify + pg doing one primary-key SELECT per request with a pool of 10 (Lethe's pool size),
// the limit of any read that touches the database once. The table is made by the caller
// (bench/lib/baselines.ts) and named by BENCH_SELECT_TABLE; the body names the row, as get-by-id's does.
import Fastify from 'fastify';
import pg from 'pg';

const table = process.env.BENCH_SELECT_TABLE as string;
const pool = new pg.Pool({ connectionString: process.env.BENCH_SELECT_DATABASE_URL, max: 10 });
const statement = `SELECT id, value FROM ${table} WHERE id = $1`;

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
