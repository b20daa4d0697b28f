// A Lethe under measurement: a child process on a fresh store, plus the management calls the scenarios
// need to set it up. On the embedded store the bench joins the data dir's server before Lethe starts (as a
// `lethe` command would), so that it can seed through SQL and start worker processes beside it.
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { acquireEmbeddedServer } from '../../src/db/embedded.ts';
import { type LoopDelay, loopDelayDuring } from './loop-delay.ts';
import { type Child, ROOT, startChild } from './processes.ts';

export interface LetheUnderTest extends Child {
  token: string;
  /** The master key the process runs with, for the seeder to seal values as Lethe does. */
  encryptionKey: Buffer;
  /** The database Lethe runs on (on the embedded store, the data dir's server). */
  databaseUrl: string;
  /** The data dir; on the embedded store it holds the server's cluster. */
  dataDir: string;
  management(method: string, urlPath: string, body?: unknown): Promise<unknown>;
  /** An API key for the datastore `bench` with a limit no load reaches (the key is the answer). */
  issueBenchKey(): Promise<string>;
  /** The environment the process runs with, for a worker process on the same store. */
  env: Record<string, string>;
  /** Runs `during` and answers the API process's event-loop delay while it ran. */
  loopDelay<T>(during: () => Promise<T>): Promise<{ result: T; delay: LoopDelay }>;
  dispose(): Promise<void>;
}

/** The V8 flags `npm start` runs Lethe with, so the bench measures the process users run. */
/** The environment settings `npm start` gives Lethe (`NAME=value` before its command). */
export async function startEnvironment(): Promise<Record<string, string>> {
  const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const words = manifest.scripts.start.split(/\s+/);
  return Object.fromEntries(
    words
      .slice(0, words.indexOf('exec'))
      .filter((word) => /^[A-Z_]+=/.test(word))
      .map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
  );
}

export async function startFlags(): Promise<string[]> {
  const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const words = manifest.scripts.start.split(/\s+/);
  return words.slice(1, words.indexOf('bin/lethe.mjs')).filter((word) => word.startsWith('--'));
}

export interface SignedIn {
  token: string;
  management(method: string, urlPath: string, body?: unknown): Promise<unknown>;
  issueBenchKey(): Promise<string>;
}

/** The root client's token on the Lethe at `url`, and the management calls made with it. */
export async function signIn(url: string, clientId: string, clientSecret: string): Promise<SignedIn> {
  const tokenAnswer = await fetch(`${url}/v1/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
  const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };

  const management = async (method: string, urlPath: string, body?: unknown) => {
    const response = await fetch(`${url}${urlPath}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 400) throw new Error(`${method} ${urlPath} answered ${response.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };

  return {
    token,
    management,
    async issueBenchKey() {
      const issued = (await management('POST', '/v1/api-key', {
        name: 'bench',
        datastores: ['bench'],
        rate_limit_per_minute: 1_000_000,
      })) as { key: string };
      return issued.key;
    },
  };
}

export async function createBenchDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `lethe_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

export async function startLethe(
  adminUrl: string | undefined,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  /** The `lethe serve` command line after `serve` (e.g. `--work requests,messages`). */
  serveArgs: string[] = [],
): Promise<LetheUnderTest> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lethe-bench-'));
  // As root, the embedded server runs as the postgres user, which must pass through this dir.
  await chmod(dataDir, 0o711);
  const database = adminUrl ? await createBenchDatabase(adminUrl) : undefined;
  const embedded = database ? undefined : await acquireEmbeddedServer(dataDir);
  const clientId = 'bench-root';
  const clientSecret = randomBytes(24).toString('hex');
  const encryptionKey = randomBytes(32);
  const loopDelayFile = path.join(dataDir, 'loop-delay.json');
  const letheEnv = {
    ...(await startEnvironment()),
    LETHE_DATA_DIR: dataDir,
    LETHE_ROOT_CLIENT_ID: clientId,
    LETHE_ROOT_CLIENT_SECRET: clientSecret,
    LETHE_ENCRYPTION_KEY: encryptionKey.toString('hex'),
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...env,
  };
  const probe = pathToFileURL(path.join(ROOT, 'bench/lib/loop-delay-probe.ts')).href;
  const child = await startChild(
    path.join(ROOT, 'bin/lethe.mjs'),
    ['serve', ...serveArgs],
    { ...letheEnv, BENCH_LOOP_DELAY_FILE: loopDelayFile },
    '/health',
    [...(await startFlags()), `--import=${probe}`, ...nodeArgs],
  ).catch(async (error: unknown) => {
    await database?.drop();
    await embedded?.release();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  });
  const { token, management, issueBenchKey } = await signIn(child.url, clientId, clientSecret);
  return {
    ...child,
    token,
    encryptionKey,
    env: letheEnv,
    databaseUrl: database?.url ?? (embedded?.connectionString as string),
    dataDir,
    management,
    loopDelay: (during) => loopDelayDuring(child.pid, loopDelayFile, during),
    issueBenchKey,
    async dispose() {
      await child.stop();
      await database?.drop();
      await embedded?.release();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
