// Whom the embedded PostgreSQL runs as and whom it lets in. As root it once ran as the distribution's
// `postgres` account (on this machine, the account of the machine's own PostgreSQL 15) and let any local
// process that reached its socket connect as anyone (`trust`). Now: it runs as lethe-postgres, an account
// Lethe creates for it; every client needs the data dir's password (scram-sha-256); and a data dir of an
// earlier version (trust, owned by and running as `postgres`) is migrated on start, its data kept.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { acquireEmbeddedServer, type EmbeddedServer } from '../../src/db/embedded.ts';
import { hbaTrusts, requirePassword } from '../../src/db/embedded-auth.ts';
import { binaries, type Owner, serverAccount } from '../../src/db/embedded-cluster.ts';

const run = promisify(execFile);
const AS_ROOT = process.getuid?.() === 0;

async function accountOf(name: string): Promise<Owner | undefined> {
  try {
    return {
      uid: Number((await run('id', ['-u', name])).stdout.trim()),
      gid: Number((await run('id', ['-g', name])).stdout.trim()),
    };
  } catch {
    return undefined;
  }
}

/** The postmaster's pid, from the cluster's own record. */
async function postmasterPid(dataDir: string): Promise<number> {
  return Number((await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
}

async function processUid(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
}

async function gone(pid: number): Promise<boolean> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    if (stat === '' || stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

function withoutPassword(url: string, password?: string): string {
  const copy = new URL(url);
  copy.password = password ?? '';
  return copy.toString();
}

async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The cluster asks every client for the password: none and a wrong one are refused, the right one works. */
async function assertPasswordRequired(server: EmbeddedServer, dataDir: string): Promise<void> {
  const hba = await readFile(path.join(dataDir, 'postgres', 'pg_hba.conf'), 'utf8');
  const active = hba.split('\n').filter((line) => line.trim() && !line.trim().startsWith('#'));
  assert.ok(active.length > 0);
  for (const line of active) assert.match(line, /\sscram-sha-256(\s|$)/, line);
  assert.match(server.connectionString, /host=/, 'the server listens on its Unix socket');
  await assert.rejects(
    query(withoutPassword(server.connectionString), 'SELECT 1'),
    /password/,
    'a client without the password is refused',
  );
  await assert.rejects(
    query(withoutPassword(server.connectionString, 'not-the-password'), 'SELECT 1'),
    /password authentication failed/,
    'a client with a wrong password is refused',
  );
  const { rows } = await query(server.connectionString, 'SELECT current_user AS who');
  assert.equal(rows[0].who, 'postgres');
  const passwordFile = await stat(path.join(dataDir, 'postgres.password'));
  assert.equal(passwordFile.mode & 0o777, 0o600);
}

/** As root, the server and every file of its cluster belong to lethe-postgres, not to `postgres`. */
async function assertRunsAsLethePostgres(dataDir: string, pid: number): Promise<void> {
  if (!AS_ROOT) {
    assert.equal(await processUid(pid), process.getuid?.(), 'an ordinary user runs postgres itself');
    return;
  }
  const account = await accountOf('lethe-postgres');
  assert.ok(account, 'the lethe-postgres account exists');
  assert.equal(await processUid(pid), account.uid);
  assert.notEqual(account.uid, (await accountOf('postgres'))?.uid);
  assert.equal((await run('ps', ['-o', 'user=', '-p', String(pid)])).stdout.trim(), 'lethe-postgres');
  const cluster = await run('realpath', [path.join(dataDir, 'postgres')]);
  const foreign = await run('find', [cluster.stdout.trim(), '!', '-user', 'lethe-postgres']);
  assert.equal(foreign.stdout, '', 'every file of the cluster belongs to lethe-postgres');
}

const cleanup: string[] = [];
after(() => Promise.all(cleanup.map((dir) => rm(dir, { recursive: true, force: true }))));

async function newDataDir(): Promise<string> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lethe-embedded-auth-'));
  cleanup.push(dataDir);
  return dataDir;
}

describe('the embedded PostgreSQL as root: its own account, and a password on every connection', () => {
  it('creates lethe-postgres (system account, no login shell, no home) once and reuses it', async () => {
    const account = await serverAccount();
    if (!AS_ROOT) {
      assert.equal(account, undefined);
      return;
    }
    assert.deepEqual(await serverAccount(), account, 'reused when present');
    const [name, , uid, gid, , home, shell] = (await run('getent', ['passwd', 'lethe-postgres'])).stdout
      .trim()
      .split(':');
    assert.equal(name, 'lethe-postgres');
    assert.deepEqual([Number(uid), Number(gid)], [account?.uid, account?.gid]);
    assert.ok(Number(uid) < 1000, `a system account (uid ${uid})`);
    assert.equal(shell, '/usr/sbin/nologin');
    assert.equal(home, '/nonexistent');
  });

  it('runs a new cluster as lethe-postgres and refuses a client without the password', async () => {
    const dataDir = await newDataDir();
    const server = await acquireEmbeddedServer(dataDir, { durable: false });
    const pid = await postmasterPid(dataDir);
    try {
      await assertRunsAsLethePostgres(dataDir, pid);
      await assertPasswordRequired(server, dataDir);
    } finally {
      await server.release();
    }
    assert.ok(await gone(pid), 'the last to leave stopped the server');
  });
});

describe('the password of the data dir', () => {
  it("when it is not the cluster's, the start fails at once saying so, and leaves no server running", async () => {
    const dataDir = await newDataDir();
    const first = await acquireEmbeddedServer(dataDir, { durable: false });
    await first.release();
    const passwordFile = path.join(dataDir, 'postgres.password');
    const replaced = randomBytes(24).toString('base64url');
    await writeFile(passwordFile, `${replaced}\n`, { mode: 0o600 });
    const began = Date.now();
    await assert.rejects(acquireEmbeddedServer(dataDir, { durable: false }), (error: Error) => {
      assert.equal(error.name, 'EmbeddedStoreError');
      assert.match(error.message, /refuses the password in .*postgres\.password/);
      assert.match(error.message, /Restore it from a backup/);
      assert.ok(!error.message.includes(replaced), 'the message does not quote the password');
      return true;
    });
    assert.ok(Date.now() - began < 20_000, `failed after ${Date.now() - began} ms, not at the start timeout`);
    await assert.rejects(readFile(path.join(dataDir, 'postgres', 'postmaster.pid')), { code: 'ENOENT' });
  });
});

describe('pg_hba.conf of an earlier version', () => {
  it('has every trust record rewritten to scram-sha-256, and the rest kept as written', async () => {
    const cluster = await newDataDir();
    const file = path.join(cluster, 'pg_hba.conf');
    const lines = (method: string) => [
      '# TYPE  DATABASE  USER  ADDRESS  METHOD',
      '# local all all trust (a comment stays a comment)',
      `local   all       all            ${method}`,
      `local   all       all            ${method} # note`,
      `host    all       all   127.0.0.1/32  ${method}`,
      `host    all       all   10.0.0.0  255.0.0.0  ${method}`,
      `hostssl trust     all   samehost  ${method} clientcert=verify-full`,
      'local   replication  all          peer',
      'host    all       all   ::1/128  scram-sha-256',
      '',
    ];
    await writeFile(file, lines('trust').join('\n'));
    assert.equal(await hbaTrusts(cluster), true);
    await requirePassword(cluster, undefined);
    assert.equal(await readFile(file, 'utf8'), lines('scram-sha-256').join('\n'));
    assert.equal(await hbaTrusts(cluster), false);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
  });
});

describe('a data dir of an earlier version (local trust; as root, owned by and run as postgres)', () => {
  /** The account the earlier versions ran PostgreSQL as. */
  const oldAccount = async () => (AS_ROOT ? await accountOf('postgres') : undefined);

  /** initdb as the earlier versions did, but with trust everywhere and no password at all. */
  async function oldDataDir(): Promise<string> {
    const dataDir = await newDataDir();
    const account = await oldAccount();
    if (AS_ROOT) assert.ok(account, 'this machine has the distribution postgres account');
    await chmod(dataDir, 0o711);
    await writeFile(path.join(dataDir, 'postgres.password'), `${randomBytes(24).toString('base64url')}\n`, {
      mode: 0o600,
    });
    // As the earlier versions left it: the cluster dir made for, and owned by, postgres.
    const cluster = path.join(dataDir, 'postgres');
    await mkdir(cluster, { mode: 0o700 });
    if (account) await chown(cluster, account.uid, account.gid);
    const { initdb } = await binaries(await serverAccount());
    await run(
      initdb,
      [
        `--pgdata=${cluster}`,
        '--username=postgres',
        '--auth=trust',
        '--encoding=UTF8',
        '--no-locale',
        '--no-sync',
      ],
      { ...account, env: { ...process.env, LC_ALL: 'C' } },
    );
    return dataDir;
  }

  /** Starts the old cluster's server as the earlier versions did (as postgres), and waits until ready. */
  async function startOldServer(dataDir: string): Promise<{ pid: number; url: string }> {
    const cluster = path.join(dataDir, 'postgres');
    const { postgres } = await binaries(await serverAccount());
    const child: ChildProcess = spawn(
      postgres,
      ['-D', cluster, '-p', '5432', '-c', 'listen_addresses=', '-c', `unix_socket_directories=${cluster}`],
      { ...(await oldAccount()), detached: true, stdio: 'ignore', env: { ...process.env, LC_ALL: 'C' } },
    );
    child.unref();
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const lines = (await readFile(path.join(cluster, 'postmaster.pid'), 'utf8').catch(() => '')).split(
        '\n',
      );
      if (Number(lines[0]) === child.pid && lines[7]?.trim() === 'ready') {
        return { pid: child.pid, url: `postgresql://postgres@/postgres?host=${cluster}&port=5432` };
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the old-style server did not start');
  }

  it('stops its server running as postgres, hands the cluster to lethe-postgres, requires the password, keeps the data', async () => {
    const dataDir = await oldDataDir();
    const old = await startOldServer(dataDir);
    let server: EmbeddedServer | undefined;
    try {
      if (AS_ROOT) assert.equal(await processUid(old.pid), (await oldAccount())?.uid);
      await query(
        old.url,
        "CREATE TABLE kept (value text); INSERT INTO kept VALUES ('before the migration')",
      );
      assert.equal(
        (await query(old.url, 'SELECT 1 AS one')).rows[0].one,
        1,
        'trust let us in without a password',
      );

      server = await acquireEmbeddedServer(dataDir, { durable: false });
      const pid = await postmasterPid(dataDir);
      if (AS_ROOT) {
        assert.notEqual(pid, old.pid, 'the server of postgres was replaced');
        assert.ok(await gone(old.pid), 'the server of postgres stopped');
      }
      await assertRunsAsLethePostgres(dataDir, pid);
      await assertPasswordRequired(server, dataDir);
      const { rows } = await query(server.connectionString, 'SELECT value FROM kept');
      assert.deepEqual(rows, [{ value: 'before the migration' }]);
    } finally {
      if (server) await server.release();
      else process.kill(old.pid, 'SIGINT');
    }
  });

  it('migrates it when no server runs on it, and a second start finds nothing left to do', async () => {
    const dataDir = await oldDataDir();
    const first = await acquireEmbeddedServer(dataDir, { durable: false });
    const pid = await postmasterPid(dataDir);
    try {
      await assertRunsAsLethePostgres(dataDir, pid);
      await assertPasswordRequired(first, dataDir);
      await query(first.connectionString, "CREATE TABLE kept (value text); INSERT INTO kept VALUES ('x')");
    } finally {
      await first.release();
    }
    assert.ok(await gone(pid));
    const again = await acquireEmbeddedServer(dataDir, { durable: false });
    try {
      await assertRunsAsLethePostgres(dataDir, await postmasterPid(dataDir));
      await assertPasswordRequired(again, dataDir);
      assert.deepEqual((await query(again.connectionString, 'SELECT value FROM kept')).rows, [
        { value: 'x' },
      ]);
    } finally {
      await again.release();
    }
  });
});
