// Child processes the benchmarks measure: Lethe itself and the baselines. Load always comes from the
// orchestrating process, never from inside the server being measured.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

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

export interface Child {
  url: string;
  pid: number;
  rssMb(): Promise<number>;
  stop(): Promise<void>;
}

async function waitFor(url: string, child: ChildProcess, output: () => string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited early (${child.exitCode}):\n${output()}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${url}:\n${output()}`);
}

export async function startChild(
  script: string,
  args: string[],
  env: Record<string, string>,
  readyPath: string,
  nodeArgs: string[] = [],
): Promise<Child> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LETHE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  let stopping = false;
  // A process under measurement that dies tells why, instead of leaving the bench a reset connection.
  child.once('exit', (code, signal) => {
    if (!stopping) process.stderr.write(`${script} exited (${signal ?? code}) unasked:\n${output}\n`);
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${url}${readyPath}`, child, () => output, 60_000);
  } catch (error) {
    stopping = true;
    child.kill('SIGKILL');
    throw error;
  }
  return {
    url,
    pid: child.pid as number,
    rssMb: () => rssOf(child.pid as number),
    async stop() {
      stopping = true;
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A process with no HTTP listener (a Lethe worker): ready once `readyLine` appears on its output. */
export async function startBackgroundProcess(
  script: string,
  args: string[],
  env: Record<string, string>,
  readyLine: string,
  nodeArgs: string[] = [],
): Promise<Omit<Child, 'url'>> {
  let output = '';
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, LETHE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const onExit = (code: number | null) => {
    output += `\nexited with ${code}`;
  };
  child.once('exit', onExit);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`timed out waiting for "${readyLine}":\n${output}`)),
      60_000,
    );
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
      if (output.includes(readyLine)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`process exited early:\n${output}`));
    });
  }).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  return {
    pid: child.pid as number,
    rssMb: () => rssOf(child.pid as number),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}
