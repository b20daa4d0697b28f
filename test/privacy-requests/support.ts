// Shared pieces of the privacy-request tests: a real HTTP receiver on 127.0.0.1 that records every
// callback and answers as each test scripts it, engine-friendly test config, and setup through the API.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../../src/config.ts';
import type { TestService } from '../helpers/service.ts';

export interface ReceivedCall {
  path: string;
  headers: IncomingMessage['headers'];
  raw: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- callback bodies are inspected field by field
  body: any;
  at: number;
}

/** How the receiver answers one call: status, body (object becomes JSON), optional delay and headers. */
export interface Answer {
  status?: number;
  body?: unknown;
  delayMs?: number;
  headers?: Record<string, string>;
}

export type Responder = (call: ReceivedCall) => Answer | Promise<Answer>;

export interface Receiver {
  url: string;
  calls: ReceivedCall[];
  /** Sets how calls to `path` are answered (default: 200 with an empty body). */
  on(path: string, responder: Responder): void;
  callsTo(path: string): ReceivedCall[];
  /** Resolves once `count` calls to `path` have arrived. */
  waitFor(path: string, count?: number, timeoutMs?: number): Promise<ReceivedCall[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const calls: ReceivedCall[] = [];
  const responders = new Map<string, Responder>();
  const waiters: (() => void)[] = [];
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = raw ? JSON.parse(raw) : undefined;
        } catch {
          body = raw;
        }
        const path = (request.url ?? '/').split('?')[0] as string;
        const call: ReceivedCall = { path, headers: request.headers, raw, body, at: Date.now() };
        calls.push(call);
        for (const wake of waiters.splice(0)) wake();
        const responder: Responder = responders.get(path) ?? (() => ({}));
        const answer = await responder(call);
        if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
        if (response.destroyed) return;
        const text =
          answer.body === undefined
            ? ''
            : typeof answer.body === 'string'
              ? answer.body
              : JSON.stringify(answer.body);
        response.writeHead(answer.status ?? 200, {
          ...(answer.body !== undefined && typeof answer.body !== 'string'
            ? { 'content-type': 'application/json' }
            : {}),
          ...answer.headers,
        });
        response.end(text);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const callsTo = (path: string) => calls.filter((call) => call.path === path);
  return {
    url,
    calls,
    on: (path, responder) => responders.set(path, responder),
    callsTo,
    async waitFor(path, count = 1, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (callsTo(path).length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${count} calls to ${path}, got ${callsTo(path).length}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 200));
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return callsTo(path);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Engine settings for tests: local receivers allowed, short timeouts and fast polling. */
export const engineConfig: Partial<Config> = {
  allowInsecureWebhooks: true,
  webhookAllowedHosts: ['127.0.0.1'],
  webhookTimeoutMs: 5000,
  webhookRetryDelayMs: 20,
  jobPollingIntervalSeconds: 0.5,
  jobHeartbeatSeconds: 10,
  jobSuperviseIntervalSeconds: 1,
  sweepIntervalSeconds: 1,
};

export interface WebhookSpec {
  key: string;
  direction: 'one_way' | 'two_way';
  /** Path on the receiver; one connection per webhook so each has its own URL and authorization. */
  path?: string;
}

/**
 * Creates a connection pointing at `url` with an optional static authorization secret; answers the
 * signing secret shown once at creation.
 */
export async function connectionTo(
  service: TestService,
  key: string,
  url: string,
  authorization?: string,
): Promise<string> {
  const token = await service.rootToken();
  const created = await service.call('PATCH', '/v1/connection', {
    token,
    json: [{ name: key, key, connection_type: 'https', access: 'read' }],
  });
  assert.equal(created.status, 200, created.text);
  const secrets = await service.call('PUT', `/v1/connection/${key}`, {
    token,
    json: authorization === undefined ? { url } : { url, authorization },
  });
  assert.equal(secrets.status, 200, secrets.text);
  return created.body.succeeded[0].signing_secret as string;
}

/** A policy with the given pre and post webhooks, each on its own connection to the receiver. */
export async function policyWithWebhooks(
  service: TestService,
  receiver: Receiver,
  policyKey: string,
  pre: WebhookSpec[],
  post: WebhookSpec[] = [],
) {
  const token = await service.rootToken();
  const created = await service.call('PATCH', '/v1/dsr/policy', {
    token,
    json: [{ name: policyKey, key: policyKey, drp_action: 'access', execution_timeframe: 30 }],
  });
  assert.deepEqual(created.body.failed, [], created.text);
  for (const [timing, list] of [
    ['pre_execution', pre],
    ['post_execution', post],
  ] as const) {
    for (const webhook of list) {
      await connectionTo(
        service,
        `${policyKey}_${webhook.key}`,
        `${receiver.url}${webhook.path ?? `/${webhook.key}`}`,
        `Bearer secret-of-${webhook.key}`,
      );
    }
    const put = await service.call('PUT', `/v1/policy/${policyKey}/webhook/${timing}`, {
      token,
      json: list.map((webhook) => ({
        connection_config_key: `${policyKey}_${webhook.key}`,
        direction: webhook.direction,
        key: webhook.key,
        name: `Webhook ${webhook.key}`,
      })),
    });
    assert.equal(put.status, 200, put.text);
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- request objects are inspected field by field
export async function submit(service: TestService, item: Record<string, unknown>): Promise<any> {
  const answer = await service.call('POST', '/v1/privacy-request', {
    token: await service.rootToken(),
    json: [item],
  });
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(answer.body.failed, [], answer.text);
  return answer.body.succeeded[0];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- request objects are inspected field by field
export async function getRequest(service: TestService, id: string): Promise<any> {
  const answer = await service.call('GET', `/v1/privacy-request/${id}`, { token: await service.rootToken() });
  assert.equal(answer.status, 200, answer.text);
  return answer.body;
}

/** Polls the request until it reaches `status` (or fails after the timeout, naming the last status). */
export async function waitForStatus(
  service: TestService,
  id: string,
  status: string,
  timeoutMs = 60_000,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- request objects are inspected field by field
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: Awaited<ReturnType<typeof getRequest>> | undefined;
  while (Date.now() < deadline) {
    last = await getRequest(service, id);
    if (last?.status === status) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const log = await service.call('GET', `/v1/privacy-request/${id}/log`, {
    token: await service.rootToken(),
  });
  throw new Error(`request ${id} stayed ${last?.status}, expected ${status}; log: ${log.text}`);
}

/**
 * Polls the request's log until the outbox has logged a message of `kind` as sent. The subject's mail
 * server holds a message before the outbox writes "sent" on the log, so a test that counts log entries
 * after a mail arrived waits for this first.
 */
export async function waitForMessageLogged(
  service: TestService,
  id: string,
  kind: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const log = await logOf(service, id);
    if (log.some((entry) => entry.details?.message_kind === kind && entry.error === null)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`request ${id}: no "${kind}" message logged as sent within ${timeoutMs} ms`);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- log entries are inspected field by field
export async function logOf(service: TestService, id: string): Promise<any[]> {
  const answer = await service.call('GET', `/v1/privacy-request/${id}/log`, {
    token: await service.rootToken(),
  });
  assert.equal(answer.status, 200, answer.text);
  return answer.body;
}
