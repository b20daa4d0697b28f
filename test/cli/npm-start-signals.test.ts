// `npm start` stops cleanly on the signals a process manager or `kill` sends to the pid it started (npm's
// own): npm forwards SIGTERM and SIGINT to the script's shell, and the script `exec`s node so that the
// shell is node; node then stops the API, the worker and its embedded PostgreSQL. Then the port is closed
// and no process of the tree (npm, node, postgres and its backends) is left, waited for up to 60 s (a
// bound, not a timing: a loaded machine stops slowly). Both runs share one data dir, so the second one
// skips initdb. The first start's generated root client comes last, framed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SLOW, waitForOutput } from './support.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Only keeps a failure from hanging the run. */
const STOP_BOUND_MS = 60_000;

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** pid -> [parent pid, command line] of every process, read from /proc. */
function processes(): Map<number, [number, string]> {
  const table = new Map<number, [number, string]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // A zombie has exited; reaping it is its parent's business (in a container, whatever runs as pid 1).
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      table.set(Number(entry), [parent, command]);
    } catch {
      // gone while reading
    }
  }
  return table;
}

function tree(root: number): number[] {
  const table = processes();
  const found = [root];
  for (let index = 0; index < found.length; index += 1)
    for (const [pid, [parent]] of table) if (parent === found[index]) found.push(pid);
  return found;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

describe('npm start on SIGTERM and SIGINT', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'lethe-npm-start-'));
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    it(`stops node and its PostgreSQL after ${signal} to npm's pid`, SLOW, async () => {
      const port = await freePort();
      const env: Record<string, string | undefined> = {
        ...process.env,
        PORT: String(port),
        LETHE_DATA_DIR: path.join(dir, 'data'),
        LETHE_LOG_LEVEL: 'warn',
      };
      delete env.DATABASE_URL;
      const npm = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      npm.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const exited = new Promise((resolve) => npm.once('exit', resolve));
      let started: number[] = [];
      let passed = false;
      try {
        // A first start (SIGTERM's run) prints the generated root client after everything else, framed.
        const fresh = signal === 'SIGTERM';
        const listening = await waitForOutput(
          npm,
          fresh ? /Lethe listening on \S+ \(store: embedded\)\n([\s\S]*?#\n#+\n)/ : /Lethe listening on /,
        );
        if (fresh) {
          assert.match(
            listening[1] ?? '',
            /^\n(#+)\n# Generated the root management client \(stored in .*\): +#\n# {3}client_id: +root_\S+ +#\n# {3}client_secret: +\S+ +#\n\1\n$/,
          );
        }
        assert.ok(await portOpen(port), 'serving');
        started = tree(npm.pid as number);
        // The cluster's directory (under the data dir, or /var/lib/lethe as root): no process may keep it.
        const table = processes();
        const clusters = started.flatMap(
          (pid) => /postgres -D (\S+)/.exec(table.get(pid)?.[1] ?? '')?.[1] ?? [],
        );
        assert.ok(clusters.length > 0, `the embedded PostgreSQL runs in the tree: ${stderr}`);

        const signalled = Date.now();
        process.kill(npm.pid as number, signal);
        let left: number[] = started;
        let open = true;
        while (Date.now() - signalled < STOP_BOUND_MS) {
          const table = processes();
          left = started.filter((pid) => table.has(pid));
          for (const [pid, [, command]] of table)
            if (!left.includes(pid) && clusters.some((cluster) => command.includes(cluster))) left.push(pid);
          open = await portOpen(port);
          if (left.length === 0 && !open) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.equal(open, false, `port ${port} still open after ${signal}`);
        assert.deepEqual(
          left.map((pid) => processes().get(pid)?.[1]),
          [],
          `processes left after ${signal}`,
        );
        await exited;
        passed = true;
      } finally {
        // A failed run leaves nothing behind either: what is left of the tree it recorded is killed.
        for (const pid of passed ? [] : [npm.pid as number, ...started].reverse()) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone already
          }
        }
      }
    });
});
