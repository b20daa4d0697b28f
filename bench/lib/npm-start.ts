// `npm start` as a user runs it: npm, the script's shell (replaced by the service through `exec`), the
// service and the embedded PostgreSQL it starts in a fresh data dir. The memory figure is the proportional
// set size (PSS, /proc/<pid>/smaps_rollup) summed over every process of that tree: pages shared between
// processes (postgres's shared buffers, npm's and Node's common libraries) are divided among them, so the
// sum counts each page once.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { signIn, type SignedIn } from './lethe.ts';
import { freePort, ROOT } from './processes.ts';

export interface NpmStarted extends SignedIn {
  url: string;
  /** The pid of npm itself, the root of the tree. */
  pid: number;
  stop(): Promise<void>;
}

export interface TreeMemory {
  totalMib: number;
  /** PSS of `npm`, of the service (`lethe`) and of its `postgres` server (all its processes). */
  byCommand: Record<string, number>;
  processes: number;
}

export async function startWithNpm(): Promise<NpmStarted> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lethe-bench-npm-'));
  // As root, the embedded server runs as the postgres user, which must pass through this dir.
  await chmod(dataDir, 0o711);
  const port = await freePort();
  const clientId = 'bench-root';
  const clientSecret = randomBytes(24).toString('hex');
  let output = '';
  const child: ChildProcess = spawn('npm', ['start'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LETHE_LOG_LEVEL: 'warn',
      LETHE_DATA_DIR: dataDir,
      LETHE_ROOT_CLIENT_ID: clientId,
      LETHE_ROOT_CLIENT_SECRET: clientSecret,
      LETHE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // npm passes SIGTERM on to the script; the service stops its embedded server on the way out.
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`npm start did not answer /health:\n${output}`);
    }
    const healthy = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { url, pid: child.pid as number, stop, ...(await signIn(url, clientId, clientSecret)) };
}

/** `root` and all its descendants, by the parent pid of every process in /proc. */
async function descendants(root: number): Promise<{ pid: number; command: string }[]> {
  const parents = new Map<number, { parent: number; command: string }>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (!stat) continue;
    const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(Number(entry), { parent, command });
  }
  const tree = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, { parent }] of parents) {
      if (!tree.has(pid) && tree.has(parent)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return [...tree].map((pid) => ({ pid, command: parents.get(pid)?.command ?? '?' }));
}

async function pssMib(pid: number): Promise<number> {
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
  return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) / 1024;
}

export async function treeMemory(root: number): Promise<TreeMemory> {
  const processes = await descendants(root);
  const byCommand: Record<string, number> = {};
  let totalMib = 0;
  for (const { pid, command } of processes) {
    const pss = await pssMib(pid);
    // postgres names its processes by role ("postgres: checkpointer"); they are one server. Node names
    // its main thread "MainThread" and npm sets its title to "npm start".
    const name = pid === root ? 'npm' : command.startsWith('postgres') ? 'postgres' : 'lethe';
    byCommand[name] = (byCommand[name] ?? 0) + pss;
    totalMib += pss;
  }
  return { totalMib, byCommand, processes: processes.length };
}
