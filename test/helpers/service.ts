// Starts a real Lethe on a real store for one test file: PGlite (default) or, when
// LETHE_TEST_DATABASE_URL is set, a fresh PostgreSQL database created for it and dropped afterwards.
// PGlite data dirs are copied from a template made once (initdb + migrations take seconds).
import { createHash, randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Config, loadConfig } from '../../src/config.ts';
import { type RunningService, startService } from '../../src/runtime/start.ts';

const POSTGRES_URL = process.env.LETHE_TEST_DATABASE_URL;
const ROOT = path.resolve(import.meta.dirname, '../..');

export interface TestService extends RunningService {
  url: string;
  config: Config;
  rootToken(): Promise<string>;
  /** fetch against the service with an optional JSON body and bearer token. */
  call(method: string, urlPath: string, options?: CallOptions): Promise<CallResult>;
  /** Every log line the service wrote (only with `captureLogs`; the logger is off otherwise). */
  logLines: string[];
  /** The raw text of every answer `call` received, to search for values that must never appear. */
  answers: string[];
}

export interface CallOptions {
  json?: unknown;
  body?: BodyInit;
  token?: string;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test answers are inspected field by field
  body: any;
}

async function templateKey(): Promise<string> {
  const hash = createHash('sha256');
  const migrations = path.join(ROOT, 'src/db/migrations');
  for (const file of (await readdir(migrations)).sort())
    hash.update(file).update(await readFile(path.join(migrations, file)));
  hash.update(await readFile(path.join(ROOT, 'package-lock.json')));
  return hash.digest('hex').slice(0, 16);
}

/** A migrated PGlite data dir, built once per machine and migration set, shared by every test. */
async function pgliteTemplate(): Promise<string> {
  const template = path.join(tmpdir(), `lethe-pglite-template-${await templateKey()}`);
  try {
    await readdir(path.join(template, 'pgdata'));
    return template;
  } catch {
    const building = await mkdtemp(path.join(tmpdir(), 'lethe-template-build-'));
    const service = await startService(testConfig({ dataDir: building }), {
      api: false,
      worker: false,
      announce: () => undefined,
    });
    await service.stop();
    await rename(building, template).catch(async () => rm(building, { recursive: true, force: true }));
    return template;
  }
}

/** A new data dir holding a copy of the migrated PGlite template, for a Lethe started as a child process. */
export async function preparedPgliteDataDir(): Promise<string> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lethe-test-'));
  await cp(path.join(await pgliteTemplate(), 'pgdata'), path.join(dataDir, 'pgdata'), { recursive: true });
  return dataDir;
}

function testConfig(overrides: Partial<Config>): Config {
  return {
    ...loadConfig({}),
    port: 0,
    encryptionKey: randomBytes(32),
    rootClient: { id: 'root-test-client', secret: randomBytes(24).toString('base64url') },
    logLevel: 'silent',
    // Suites that fail authentication on purpose many times; test/security/ tests the real default.
    authFailuresPerMinute: 100_000,
    ...overrides,
  };
}

export async function startTestService(
  overrides: Partial<Config> = {},
  options: { worker?: boolean; captureLogs?: boolean } = {},
): Promise<TestService> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lethe-test-'));
  let databaseUrl: string | undefined;
  let dropDatabase = async () => {};
  if (POSTGRES_URL) {
    const name = `lethe_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    dropDatabase = async () => {
      const dropper = new pg.Client({ connectionString: POSTGRES_URL });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    };
  } else {
    await mkdir(dataDir, { recursive: true });
    await cp(path.join(await pgliteTemplate(), 'pgdata'), path.join(dataDir, 'pgdata'), { recursive: true });
  }

  const config = testConfig({ dataDir, databaseUrl, ...overrides });
  const logLines: string[] = [];
  const answers: string[] = [];
  const running = await startService(config, {
    api: true,
    worker: options.worker ?? false,
    logger: options.captureLogs
      ? { level: 'debug', stream: { write: (line) => logLines.push(line) } }
      : false,
    announce: (message) => logLines.push(message),
  });
  const url = running.url as string;

  const call: TestService['call'] = async (method, urlPath, callOptions = {}) => {
    const headers: Record<string, string> = { ...callOptions.headers };
    let body = callOptions.body;
    if (callOptions.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(callOptions.json);
    }
    if (callOptions.token) headers.authorization = `Bearer ${callOptions.token}`;
    const response = await fetch(`${url}${urlPath}`, { method, headers, body });
    const text = await response.text();
    answers.push(text);
    let parsed: unknown = text;
    if (response.headers.get('content-type')?.includes('json') && text) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, text, body: parsed };
  };

  let token: string | undefined;
  return {
    ...running,
    url,
    config: running.services.config,
    call,
    logLines,
    answers,
    async rootToken() {
      if (!token) {
        const root = running.services.config.rootClient as { id: string; secret: string };
        const answer = await call('POST', '/v1/oauth/token', {
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: root.id,
            client_secret: root.secret,
          }),
        });
        token = answer.body.access_token as string;
      }
      return token;
    },
    async stop() {
      await running.stop();
      await dropDatabase();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
