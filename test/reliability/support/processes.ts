// Lethe as child processes (`node src/cli/main.ts serve|worker`), for tests that kill, restart or starve them.
// A test reads a child's output when it fails and asks whether it is still alive; it never waits on
// a dead child's port.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../../..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface LetheProcess {
  readonly command: string;
  readonly pid: number;
  /** API address (serve only). */
  readonly url: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  alive(): boolean;
  /** Resolves with the exit code or signal once the process has ended. */
  readonly exited: Promise<string>;
  kill(signal: NodeJS.Signals): Promise<string>;
}

async function waitUntil(ready: () => Promise<boolean>, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`lethe exited while starting (${child.exitCode ?? child.signalCode}):\n${output()}`);
    }
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`lethe did not become ready in 60 s:\n${output()}`);
}

/**
 * Starts `lethe serve` (API, optionally without its in-process worker) or `lethe worker` and resolves
 * once it is ready: /health answers for serve, the "worker running" line for worker.
 */
export async function startLethe(
  command: 'serve' | 'worker',
  env: Record<string, string>,
): Promise<LetheProcess> {
  const port = command === 'serve' ? await freePort() : 0;
  let text = '';
  const child = spawn(process.execPath, [path.join(ROOT, 'src/cli/main.ts'), command], {
    cwd: ROOT,
    env: { ...process.env, LETHE_LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const append = (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-200_000);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? `exit ${code}`)),
  );
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(
    async () => {
      if (command === 'worker') return /worker running/i.test(text);
      try {
        return (await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) })).status === 200;
      } catch {
        return false;
      }
    },
    child,
    () => text,
  );
  return {
    command,
    pid: child.pid as number,
    url,
    output: () => text,
    alive: () => child.exitCode === null && child.signalCode === null,
    exited,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const how = await exited;
      clearTimeout(timer);
      return how;
    },
  };
}

export interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a one-shot `lethe ...args` command to its end. */
export function runLethe(args: string[], env: Record<string, string>): Promise<CommandRun> {
  const child = spawn(process.execPath, [path.join(ROOT, 'src/cli/main.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, LETHE_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
