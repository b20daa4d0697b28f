// Starts a real Lethe for one test file, on a fresh database of the test server (test/helpers/database.ts)
// that is dropped afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Config, loadConfig } from '../../src/config.ts';
import { type RunningService, startService } from '../../src/runtime/start.ts';
import type { WorkKind } from '../../src/runtime/work.ts';
import { createTestDatabase } from './database.ts';
import { Contract, type OpenApi } from './openapi-contract.ts';

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
  options: {
    worker?: boolean;
    /** What the worker does (all of it unless given). */
    work?: readonly WorkKind[];
    /** true captures at debug level, or at the level named. */
    captureLogs?: boolean | 'info' | 'debug';
    /**
     * Check every answer `call` gets against the served /openapi.json (status, content type, body). On by
     * default: pass false only where a test deliberately provokes an answer off the contract, saying why.
     */
    checkAnswers?: boolean;
  } = {},
): Promise<TestService> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lethe-test-'));
  const database = await createTestDatabase();
  const config = testConfig({ dataDir, databaseUrl: database.url, ...overrides });
  const logLines: string[] = [];
  const answers: string[] = [];
  const running = await startService(config, {
    api: true,
    worker: options.worker ?? false,
    work: options.work,
    logger: options.captureLogs
      ? {
          level: options.captureLogs === true ? 'debug' : options.captureLogs,
          stream: { write: (line) => logLines.push(line) },
        }
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
    const result = { status: response.status, headers: response.headers, text, body: parsed };
    if (options.checkAnswers ?? true) {
      contract ??= new Contract(
        (await fetch(`${url}/openapi.json`).then((document) => document.json())) as OpenApi,
      );
      contract.check(method, urlPath, result);
    }
    return result;
  };
  let contract: Contract | undefined;

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
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
