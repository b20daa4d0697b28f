// Hostile values against the event loop (issue 16), on PostgreSQL (npm run test:chaos). `lethe serve` runs
// as a child process; every route the OpenAPI document lists with a JSON body is sent bodies whose string
// fields, one at a time, hold a value of about 1 MiB (the body limit), and every Area B route its fields as
// urlencoded and multipart forms the same way, each value shaped to hurt a backtracking or quadratic check:
// `a@.a.a…@`, runs of `{`, of spaces, of `%`, of digits. Proves: no answer is a 5xx, and no request costs
// the server more than 250 ms of CPU. The requests go one at a time, and the server's CPU (its own
// account in /proc, user and system) is read before and after each: what a request costs there is what
// it can hold the event loop for (the target is 100 ms of /health latency), counted in work, so
// that the machine's other load cannot fail the test, nor hide a quadratic check (which costs seconds on
// one such value). The measured figures are reported.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { Agent, FormData, fetch as undiciFetch } from 'undici';
import { managementToken, timedCall } from '../reliability/support/http.ts';
import { type LetheProcess, startLethe } from '../reliability/support/processes.ts';

const ADMIN_URL = process.env.LETHE_TEST_DATABASE_URL;
const BODY_LIMIT = 1024 * 1024;
const VALUE_BYTES = BODY_LIMIT - 8 * 1024;
const MAX_SLOTS_PER_ROUTE = 4;
/** What one hostile request may cost the server in CPU; the linear checks spend tens of milliseconds. */
const CPU_PER_REQUEST_BOUND_MS = 250;

const SHAPES: ((size: number) => string)[] = [
  (size) => `a@${'.a'.repeat(Math.floor((size - 3) / 2))}@`,
  (size) => '{'.repeat(size),
  (size) => `${' '.repeat(size - 1)}x`,
  (size) => '%'.repeat(size),
  (size) => `+1${'0'.repeat(size - 3)}!`,
  (size) => `${'a'.repeat(size - 1)}@`,
];

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
}

/**
 * A value of the schema where the `slot`-th string (in a walk of the schema) is `hostile` and every other
 * string is short; answers the value and how many strings the schema has.
 */
function fill(
  schema: Schema | undefined,
  slot: number,
  hostile: string,
): { value: unknown; strings: number } {
  let seen = 0;
  const walk = (node: Schema | undefined, depth: number): unknown => {
    if (!node || depth > 6) return 'x';
    if (node.const !== undefined) return node.const;
    if (node.enum) return node.enum[0];
    const branch = node.anyOf?.[0] ?? node.oneOf?.[0];
    if (branch) return walk(branch, depth + 1);
    if (node.allOf) return Object.assign({}, ...node.allOf.map((part) => walk(part, depth + 1)));
    const type = Array.isArray(node.type) ? node.type[0] : node.type;
    if (type === 'object' || node.properties) {
      return Object.fromEntries(
        Object.entries(node.properties ?? {}).map(([name, property]) => [name, walk(property, depth + 1)]),
      );
    }
    if (type === 'array') return [walk(node.items, depth + 1)];
    if (type === 'integer' || type === 'number') return 1;
    if (type === 'boolean') return false; // never switch maintenance on
    const mine = seen === slot;
    seen += 1;
    return mine ? hostile : 'x';
  };
  const value = walk(schema, 0);
  return { value, strings: seen };
}

/** The CPU a process has spent, user and system, from /proc/PID/stat (in clock ticks of 10 ms). */
async function processCpuMilliseconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name (which may hold spaces) start with the state, field 3; utime and
  // stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function percentile(samples: number[], fraction: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

describe('1 MiB hostile values against every endpoint that takes text', () => {
  let databaseName: string;
  let dataDir: string;
  let lethe: LetheProcess;
  let token: string;
  let apiKey: string;

  before(async () => {
    assert.ok(ADMIN_URL, 'the chaos run needs PostgreSQL: set LETHE_TEST_DATABASE_URL');
    databaseName = `lethe_chaos_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${databaseName}`);
    await admin.end();
    const url = new URL(ADMIN_URL);
    url.pathname = `/${databaseName}`;
    dataDir = await mkdtemp(path.join(tmpdir(), 'lethe-hostile-'));
    const env = {
      DATABASE_URL: url.toString(),
      LETHE_DATA_DIR: dataDir,
      LETHE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      LETHE_ROOT_CLIENT_ID: 'hostile-root',
      LETHE_ROOT_CLIENT_SECRET: randomBytes(24).toString('hex'),
      LETHE_AUTH_FAILURES_PER_MINUTE: '1000000',
    };
    lethe = await startLethe('serve', env);
    token = await managementToken(lethe.url, env.LETHE_ROOT_CLIENT_ID, env.LETHE_ROOT_CLIENT_SECRET);
    assert.equal(
      (await timedCall(lethe.url, 'POST', '/v1/datastore', { token, json: { name: 'hostile' } })).status,
      201,
    );
    const key = await timedCall(lethe.url, 'POST', '/v1/api-key', {
      token,
      json: { name: 'hostile', datastores: ['hostile'], rate_limit_per_minute: 1_000_000 },
    });
    apiKey = key.body.key;
  });

  after(async () => {
    if (lethe?.alive()) await lethe.kill('SIGTERM');
    if (ADMIN_URL && databaseName) {
      const admin = new pg.Client({ connectionString: ADMIN_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
      await admin.end();
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('answers none with a 5xx, and no request costs the server more than the bound in CPU', async (t) => {
    const document = (await timedCall(lethe.url, 'GET', '/openapi.json')).body as {
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: { content?: Record<string, { schema?: Schema }> };
            parameters?: { in: string; name: string }[];
          }
        >
      >;
    };
    const targets = Object.entries(document.paths).flatMap(([route, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) => {
        const schema = operation.requestBody?.content?.['application/json']?.schema;
        return schema ? [{ method: method.toUpperCase(), route, schema }] : [];
      }),
    );
    assert.ok(targets.length > 20, `the OpenAPI document lists ${targets.length} routes with a JSON body`);

    const hostileAgent = new Agent({ connections: 1 });
    /** Sends one hostile request and answers its status, with what it cost the server in CPU. */
    const costs: { request: string; cpuMs: number }[] = [];
    const send = async (request: string, url: string, init: Parameters<typeof undiciFetch>[1]) => {
      const cpuBefore = await processCpuMilliseconds(lethe.pid);
      const answer = await undiciFetch(url, { ...init, dispatcher: hostileAgent });
      await answer.arrayBuffer();
      costs.push({ request, cpuMs: (await processCpuMilliseconds(lethe.pid)) - cpuBefore });
      return answer.status;
    };

    // Area B also takes its fields as a form (urlencoded or multipart): each field in turn hostile.
    const forms = Object.entries(document.paths).flatMap(([route, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) => {
        const content = operation.requestBody?.content ?? {};
        const fields = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
        return route.startsWith('/api/') &&
          'application/x-www-form-urlencoded' in content &&
          fields.length > 0
          ? [{ method: method.toUpperCase(), route, fields: fields.map((field) => field.name) }]
          : [];
      }),
    );
    assert.ok(forms.length >= 10, `${forms.length} Area B routes take forms`);
    const subjectHeaders = { 'api-key': apiKey, datastore: 'hostile' };

    const failures: string[] = [];
    let sent = 0;
    try {
      for (const [index, form] of forms.entries()) {
        for (const [slot, hostileField] of form.fields.entries()) {
          const shape = SHAPES[(index + slot) % SHAPES.length] as (size: number) => string;
          const fields = (size: number): [string, string][] =>
            form.fields.map((field) => [field, field === hostileField ? shape(size) : 'x']);
          // URL encoding may triple a character, so the urlencoded value is a third of the limit.
          const bodies: (URLSearchParams | FormData)[] = [
            new URLSearchParams(fields(Math.floor(VALUE_BYTES / 3))),
          ];
          const multipart = new FormData();
          for (const [field, value] of fields(VALUE_BYTES)) multipart.append(field, value);
          bodies.push(multipart);
          for (const body of bodies) {
            const request = `${form.method} ${form.route} form ${hostileField}`;
            const status = await send(request, `${lethe.url}${form.route}`, {
              method: form.method,
              headers: subjectHeaders,
              body,
            });
            sent += 1;
            if (status >= 500) failures.push(`${request}: ${status}`);
          }
        }
      }
      for (const [index, target] of targets.entries()) {
        const { strings } = fill(target.schema, -1, '');
        for (let slot = 0; slot < Math.min(Math.max(strings, 1), MAX_SLOTS_PER_ROUTE); slot += 1) {
          const shape = SHAPES[(index + slot) % SHAPES.length] as (size: number) => string;
          const { value } = fill(target.schema, slot, shape(VALUE_BYTES));
          const urlPath = target.route.replace(/\{[^{}/]+\}/g, 'hostile%40.a.a.a%40');
          const request = `${target.method} ${target.route} slot ${slot}`;
          const status = await send(request, `${lethe.url}${urlPath}`, {
            method: target.method,
            headers: {
              'content-type': 'application/json',
              authorization: `Bearer ${token}`,
              ...(urlPath.startsWith('/api/') && !urlPath.startsWith('/api/v1/')
                ? { ...subjectHeaders, authorization: `Bearer ${apiKey}` }
                : {}),
            },
            body: JSON.stringify(value),
          });
          sent += 1;
          if (status >= 500) failures.push(`${request}: ${status}`);
        }
      }
    } finally {
      await hostileAgent.close();
    }

    const cpu = costs.map((cost) => cost.cpuMs);
    const dearest = costs.reduce((most, cost) => (cost.cpuMs > most.cpuMs ? cost : most));
    const summary =
      `${sent} hostile requests to ${targets.length} JSON routes and ${forms.length} form routes; ` +
      `server CPU a request: p50 ${percentile(cpu, 0.5)} ms, p99 ${percentile(cpu, 0.99)} ms, ` +
      `most ${dearest.cpuMs} ms (${dearest.request})`;
    t.diagnostic(summary);
    assert.deepEqual(failures, []);
    assert.ok(dearest.cpuMs <= CPU_PER_REQUEST_BOUND_MS, summary);
  });
});
