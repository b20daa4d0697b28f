// The embedded PostgreSQL under real `lethe` processes, each in a data dir of its own:
// - SIGKILL of `serve` leaves its postgres running; the next `serve` finds it through postmaster.pid and
//   reuses it, and every write acknowledged with a 2xx before the kill is there;
// - SIGKILL of `serve` and of its postgres together (a crash of both): the next start recovers the data
//   dir (PostgreSQL's WAL replay), retrying while the killed postmaster lingers;
// - a normal stop (SIGTERM) leaves no postgres process;
// - `lethe datastore list` works beside a running `serve` and leaves its server running; with no server
//   running, a command starts one and stops it when done;
// - a data dir of the PGlite versions is refused with a message saying what to do;
// - as root, a data dir under a parent lethe-postgres cannot enter (a checkout under /root) still works.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, lstat, mkdir, mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { managementToken, timedCall } from './support/http.ts';
import { type LetheProcess, runLethe, startLethe } from './support/processes.ts';

const WRITES = 40;

function installation(dataDir: string): Record<string, string> {
  return {
    LETHE_DATA_DIR: dataDir,
    LETHE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LETHE_ROOT_CLIENT_ID: 'durability-root',
    LETHE_ROOT_CLIENT_SECRET: randomBytes(24).toString('hex'),
    // The embedded default, whatever the environment of the test run says.
    DATABASE_URL: '',
  };
}

/** The pid in the data dir's postmaster.pid, or undefined when no server claims the data dir. */
async function postmasterPid(dataDir: string): Promise<number | undefined> {
  try {
    return Number((await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
  } catch {
    return undefined;
  }
}

/** Running, as opposed to gone or a zombie waiting to be reaped. */
async function running(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

async function waitUntilGone(pid: number): Promise<boolean> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (!(await running(pid))) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe('the embedded PostgreSQL under real lethe processes', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let lethe: LetheProcess | undefined;
  let token = '';
  let area: Record<string, string> = {};
  const login = () =>
    managementToken(
      (lethe as LetheProcess).url,
      env.LETHE_ROOT_CLIENT_ID as string,
      env.LETHE_ROOT_CLIENT_SECRET as string,
    );

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'lethe-embedded-durability-'));
    env = installation(dataDir);
    lethe = await startLethe('serve', env);
  });
  after(async () => {
    if (lethe?.alive()) await lethe.kill('SIGTERM');
    const pid = await postmasterPid(dataDir);
    if (pid && (await running(pid))) process.kill(pid, 'SIGINT');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('reuses the server a SIGKILLed serve left running, with every acknowledged write', async () => {
    const serve = lethe as LetheProcess;
    assert.match(serve.output(), /store: embedded/);
    token = await login();
    assert.equal(
      (await timedCall(serve.url, 'POST', '/v1/datastore', { token, json: { name: 'kept' } })).status,
      201,
    );
    const key = await timedCall(serve.url, 'POST', '/v1/api-key', {
      token,
      json: { name: 'durability', datastores: ['kept'], rate_limit_per_minute: 1_000_000 },
    });
    assert.equal(key.status, 201, key.text);
    area = { 'api-key': key.body.key as string, datastore: 'kept' };

    const connections: string[] = [];
    const entities: { id: string; email: string }[] = [];
    for (let index = 0; index < WRITES; index++) {
      const connection = `kept_${index}`;
      const upsert = await timedCall(serve.url, 'PATCH', '/v1/connection', {
        token,
        json: [{ key: connection, name: connection, connection_type: 'https', access: 'read' }],
      });
      assert.equal(upsert.status, 200, upsert.text);
      connections.push(connection);
      const entity = { id: randomUUID(), email: `kept-${index}@example.com` };
      const created = await timedCall(serve.url, 'POST', '/api/entity/create', {
        headers: area,
        json: [{ id: entity.id, name: 'users', attributes: [{ name: 'email', value: entity.email }] }],
      });
      assert.equal(created.status, 203, created.text);
      entities.push(entity);
    }
    const server = await postmasterPid(dataDir);
    assert.ok(server, 'serve started a server in the data dir');
    assert.equal(await serve.kill('SIGKILL'), 'SIGKILL');
    assert.ok(await running(server), 'the killed serve left its postgres running');

    lethe = await startLethe('serve', env);
    assert.equal(await postmasterPid(dataDir), server, 'the new serve joined the orphaned server');
    token = await login();
    for (const connection of connections) {
      assert.equal(
        (await timedCall(lethe.url, 'GET', `/v1/connection/${connection}`, { token })).status,
        200,
        `${connection} survived`,
      );
    }
    const read = await timedCall(lethe.url, 'POST', '/api/entity/get-by-id', {
      headers: area,
      json: entities.map((entity) => entity.id),
    });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(
      read.body.map((entity: { attributes: { value: string }[] }) => entity.attributes[0]?.value),
      entities.map((entity) => entity.email),
    );
  });

  it('runs lethe datastore list beside serve, on the same server, and leaves it running', async () => {
    const server = await postmasterPid(dataDir);
    const listed = await runLethe(['datastore', 'list', '--json'], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      (JSON.parse(listed.stdout) as { name: string }[]).map((datastore) => datastore.name),
      ['kept'],
    );
    assert.equal(await postmasterPid(dataDir), server);
    assert.ok(server && (await running(server)), 'the command left the server of serve running');
    assert.equal((await fetch(`${(lethe as LetheProcess).url}/health`)).status, 200);
  });

  it('recovers the data dir when serve and its postgres are killed together', async () => {
    const server = (await postmasterPid(dataDir)) as number;
    process.kill(server, 'SIGKILL');
    assert.equal(await (lethe as LetheProcess).kill('SIGKILL'), 'SIGKILL');
    // At once: the killed postmaster may still be a zombie whose pid PostgreSQL takes for a live server.
    lethe = await startLethe('serve', env);
    assert.notEqual(await postmasterPid(dataDir), server);
    const read = await timedCall(lethe.url, 'GET', '/v1/connection/kept_39', { token: await login() });
    assert.equal(read.status, 200, read.text);
  });

  it('leaves no postgres process after a normal stop', async () => {
    const server = (await postmasterPid(dataDir)) as number;
    assert.equal(await (lethe as LetheProcess).kill('SIGTERM'), 'exit 0');
    assert.ok(await waitUntilGone(server), `postgres ${server} is still running`);
    assert.equal(await postmasterPid(dataDir), undefined, 'postmaster.pid is removed by a clean shutdown');
  });

  it('starts the server for a command when none runs, and stops it after', async () => {
    const listed = await runLethe(['datastore', 'list', '--json'], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /"kept"/);
    assert.equal(await postmasterPid(dataDir), undefined, 'no server is left behind');
  });
});

describe('data dirs the embedded PostgreSQL must handle', () => {
  const made: string[] = [];
  after(async () => {
    for (const dir of made) await rm(dir, { recursive: true, force: true });
  });

  it('refuses a data dir of the PGlite versions, saying what to do, and changes nothing', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'lethe-pglite-era-'));
    made.push(dataDir);
    await mkdir(path.join(dataDir, 'pgdata'));
    await writeFile(path.join(dataDir, 'pgdata', 'PG_VERSION'), '17\n');
    const listed = await runLethe(['datastore', 'list'], installation(dataDir));
    assert.equal(listed.code, 1);
    assert.match(listed.stderr, /written by an earlier Lethe \(PGlite/);
    assert.match(listed.stderr, /run the earlier version on this data dir/);
    assert.match(listed.stderr, /move .*pgdata away/);
    await assert.rejects(lstat(path.join(dataDir, 'postgres')), { code: 'ENOENT' });
  });

  it('starts under a parent directory only its owner may enter (a checkout under /root)', async () => {
    const parent = await mkdtemp(path.join(tmpdir(), 'lethe-private-parent-'));
    made.push(parent);
    await chmod(parent, 0o700);
    const dataDir = path.join(parent, 'data');
    const listed = await runLethe(['datastore', 'list', '--json'], installation(dataDir));
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stdout.trim(), '[]');
    const cluster = path.join(dataDir, 'postgres');
    if (process.getuid?.() === 0) {
      // postgres runs as lethe-postgres, which cannot pass the parent: the cluster lives where it can.
      const target = await readlink(cluster);
      assert.match(target, /^\/var\/lib\/lethe\//);
      made.push(target);
    } else {
      assert.ok((await lstat(cluster)).isDirectory());
    }
    assert.equal(await postmasterPid(dataDir), undefined);
  });
});
