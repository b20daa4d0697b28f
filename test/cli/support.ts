// A store of its own for `lethe` child processes: a fresh, empty database on the test server, dropped
// afterwards. Commands run as real processes (`node src/cli/main.ts ...`) with DATABASE_URL pointing at it;
// the test reads the outcome through the store or a real API started on the same store. (The embedded
// default's sharing between processes is tested in test/reliability/embedded-durability.test.ts.)
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Config, loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/open.ts';
import { type RunningService, startService } from '../../src/runtime/start.ts';
import { createTestDatabase } from '../helpers/database.ts';

/**
 * Each `lethe` process loads the whole service (seconds on a loaded 2-core machine) and opens the store,
 * so these tests get more time than the suite's default per test.
 */
export const SLOW = { timeout: 600_000 };
const CLI = path.resolve(import.meta.dirname, '../../src/cli/main.ts');

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliStore {
  dir: string;
  env: Record<string, string>;
  config: Config;
  /** Runs `lethe ...args` to its end. */
  run(args: string[]): Promise<CliRun>;
  /** Starts `lethe ...args` and hands back the process (for interrupting it). */
  start(args: string[]): ChildProcess;
  /** Opens the store in this process. */
  withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T>;
  /** Starts the real API on this store. */
  startApi(): Promise<RunningService & { url: string }>;
  remove(): Promise<void>;
}

export async function createCliStore(): Promise<CliStore> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lethe-cli-'));
  const env: Record<string, string> = {
    LETHE_DATA_DIR: path.join(dir, 'data'),
    LETHE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LETHE_ROOT_CLIENT_ID: 'root-cli-test',
    LETHE_ROOT_CLIENT_SECRET: randomBytes(24).toString('base64url'),
    LETHE_LOG_LEVEL: 'silent',
    PORT: '0',
  };
  const database = await createTestDatabase({ migrated: false });
  env.DATABASE_URL = database.url;
  const config: Config = { ...loadConfig(env), port: 0, logLevel: 'silent' };
  const childEnv = () => {
    const inherited = { ...process.env };
    delete inherited.DATABASE_URL;
    return { ...inherited, ...env };
  };

  const start = (args: string[]) =>
    spawn(process.execPath, [CLI, ...args], { cwd: dir, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });

  return {
    dir,
    env,
    config,
    start,
    run(args) {
      const child = start(args);
      let stdout = '';
      let stderr = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      return new Promise((resolve, reject) => {
        child.once('error', reject);
        child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
      });
    },
    async withDatabase(work) {
      const db = await openDatabase(config);
      try {
        return await work(db);
      } finally {
        await db.close();
      }
    },
    async startApi() {
      const running = await startService(config, {
        api: true,
        worker: false,
        logger: false,
        announce: () => {},
      });
      return { ...running, url: running.url as string };
    },
    async remove() {
      await database.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves with the first match of `pattern` in the child's stdout (which keeps flowing afterwards). */
export function waitForOutput(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = pattern.exec(output);
      if (match) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve(match);
      }
    };
    child.stdout?.on('data', onData);
    child.once('close', (code) => reject(new Error(`exited with ${code} before ${pattern}: ${output}`)));
  });
}
