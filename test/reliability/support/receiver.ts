// A real webhook receiver on 127.0.0.1 that records every callback and answers each path as a test
// scripts it, including the faults a real receiver has: slow answers, no answer, a reset connection,
// 5xx, invalid JSON, a huge body, a body that never ends, redirects. It never judges what it receives.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedCall {
  path: string;
  headers: IncomingMessage['headers'];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- callback bodies are inspected field by field
  body: any;
  at: number;
}

export type Behaviour =
  | { kind: 'answer'; status?: number; body?: unknown; delayMs?: number }
  | { kind: 'no-answer' }
  | { kind: 'reset' }
  | { kind: 'invalid-json' }
  | { kind: 'huge-body'; bytes: number }
  | { kind: 'endless-body' }
  | { kind: 'redirect'; location: string };

export type Script = (call: ReceivedCall) => Behaviour;

export interface Receiver {
  url: string;
  calls: ReceivedCall[];
  script(path: string, behaviour: Script): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const calls: ReceivedCall[] = [];
  const scripts = new Map<string, Script>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, work: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      work();
    }, ms);
    timers.add(timer);
  };

  const answer = (behaviour: Behaviour, request: IncomingMessage, response: ServerResponse) => {
    switch (behaviour.kind) {
      case 'answer': {
        const send = () => {
          if (response.destroyed) return;
          const text = behaviour.body === undefined ? '' : JSON.stringify(behaviour.body);
          response.writeHead(behaviour.status ?? 200, text ? { 'content-type': 'application/json' } : {});
          response.end(text);
        };
        if (behaviour.delayMs) later(behaviour.delayMs, send);
        else send();
        return;
      }
      case 'no-answer':
        return;
      case 'reset':
        request.socket.resetAndDestroy();
        return;
      case 'invalid-json':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"halt": tru');
        return;
      case 'huge-body': {
        response.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let left = behaviour.bytes;
        const pump = () => {
          while (left > 0 && !response.destroyed) {
            const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
            left -= piece.length;
            if (!response.write(piece)) {
              response.once('drain', pump);
              return;
            }
          }
          if (!response.destroyed) response.end();
        };
        pump();
        return;
      }
      case 'endless-body': {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"derived_identity": {"email": "');
        const drip = () => {
          if (response.destroyed) return;
          response.write('a');
          later(100, drip);
        };
        drip();
        return;
      }
      case 'redirect':
        response.writeHead(302, { location: behaviour.location });
        response.end();
        return;
    }
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        // recorded as text
      }
      const path = (request.url ?? '/').split('?')[0] as string;
      const call: ReceivedCall = { path, headers: request.headers, body, at: Date.now() };
      calls.push(call);
      const script = scripts.get(path);
      answer(script ? script(call) : { kind: 'answer' }, request, response);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    script: (path, behaviour) => scripts.set(path, behaviour),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
