// The server the tests run on, and a fresh database on it for each test file.
//
// The server: the one LETHE_TEST_DATABASE_URL names (CI sets it to the machine's PostgreSQL 15), or else
// the embedded server that the run's global setup started (test/helpers/global-setup.ts, which sets the
// variable for every test file). A file run on its own, without either, starts an embedded server for
// its own process.
//
// Each file gets a clone of a template database migrated once per server and migration set: CREATE
// DATABASE ... TEMPLATE copies files, much faster than running the migrations again.
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { acquireEmbeddedServer, type EmbeddedServer } from '../../src/db/embedded.ts';
import { startService } from '../../src/runtime/start.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Serialises template builds of concurrent test processes on one server. */
const TEMPLATE_LOCK = 7_131_978;

export interface TestServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * An embedded server in a new temporary data dir. Tests throw it away, so it skips what only durability
 * needs (fsync and full-page writes), which makes the suite several times faster on a loaded machine.
 */
export async function startEmbeddedTestServer(
  settings: Readonly<Record<string, string>> = {},
): Promise<TestServer> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lethe-test-server-'));
  // As root the server runs as lethe-postgres, which must pass through this dir.
  await chmod(dataDir, 0o711);
  const server: EmbeddedServer = await acquireEmbeddedServer(dataDir, { durable: false, settings });
  return {
    url: server.connectionString,
    async stop() {
      await server.release();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

let ownServer: Promise<string> | undefined;

/** The URL of the test server's maintenance database (`postgres`). */
export function testServerUrl(): Promise<string> {
  const url = process.env.LETHE_TEST_DATABASE_URL;
  if (url) return Promise.resolve(url);
  ownServer ??= startEmbeddedTestServer().then((server) => {
    // Stops the server once this process has nothing left to do (after the file's last test).
    process.once('beforeExit', () => void server.stop());
    return server.url;
  });
  return ownServer;
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function templateName(): Promise<string> {
  const hash = createHash('sha256');
  const migrations = path.join(ROOT, 'src/db/migrations');
  for (const file of (await readdir(migrations)).sort()) {
    hash.update(file).update(await readFile(path.join(migrations, file)));
  }
  hash.update(await readFile(path.join(ROOT, 'package-lock.json')));
  return `lethe_test_template_${hash.digest('hex').slice(0, 16)}`;
}

/** Creates the migrated template on the server unless it is there; answers its name. */
export async function ensureTemplate(serverUrl: string): Promise<string> {
  const name = await templateName();
  await withClient(serverUrl, async (admin) => {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return;
    // Built under another name and renamed when complete, so that a build cut short leaves no template.
    const building = `${name}_building_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${building}`);
    const dataDir = await mkdtemp(path.join(tmpdir(), 'lethe-template-'));
    try {
      const service = await startService(
        {
          ...loadConfig({}),
          dataDir,
          databaseUrl: databaseUrl(serverUrl, building),
          encryptionKey: randomBytes(32),
          rootClient: { id: 'root-template', secret: randomBytes(24).toString('base64url') },
          logLevel: 'silent',
        },
        { api: false, worker: false, announce: () => undefined },
      );
      await service.stop();
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    } catch (error) {
      await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      throw error;
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
  return name;
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new database holding the migrated schema (or nothing, with `migrated: false`), dropped by `drop`. */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const serverUrl = await testServerUrl();
  const template = options.migrated === false ? undefined : await ensureTemplate(serverUrl);
  const name = `lethe_test_${randomBytes(6).toString('hex')}`;
  await withClient(serverUrl, (admin) =>
    admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`),
  );
  return {
    url: databaseUrl(serverUrl, name),
    drop: () =>
      withClient(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}
