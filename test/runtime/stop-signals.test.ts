// However Lethe is stopped, it stops the embedded PostgreSQL it started or joined (issue 37, "the first
// hour"). Each case starts `lethe serve` on the embedded default, stops it the way a person, a terminal, a
// process manager or a test harness does, and checks the server of that data dir through its own record,
// `postmaster.pid`: the postmaster it names is gone, and so is the file (PostgreSQL removes it on a clean
// shutdown only). The cases share one data dir, so only the first pays for initdb.
//
// The terminal case runs under a real pseudo-terminal (util-linux `script`): the Ctrl-C byte written to it
// becomes a SIGINT to the terminal's foreground process group, npm and node both, as at a keyboard.
// Nothing here measures time: the bounds only keep a failure from hanging the run.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/lethe.mjs');
const SLOW = { timeout: 600_000 };
/** Generous: a start loads the whole service and may run initdb on a machine shared by many. */
const START_BOUND_MS = 300_000;
const STOP_BOUND_MS = 120_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let dir: string;
const dataDir = () => path.join(dir, 'data');

/** The postmaster's pid from the data dir's `postmaster.pid`, or undefined when there is no such file. */
function recordedPostmaster(): number | undefined {
  try {
    return Number(readFileSync(path.join(dataDir(), 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Whether `pid` is a running (not exited, not zombie) postgres process. */
function postgresRuns(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.startsWith(`${pid} (postgres)`) && !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

function env(): NodeJS.ProcessEnv {
  const variables: NodeJS.ProcessEnv = {
    ...process.env,
    LETHE_DATA_DIR: dataDir(),
    PORT: '0',
    LETHE_LOG_LEVEL: 'warn',
  };
  delete variables.DATABASE_URL;
  return variables;
}

interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<void>;
}

/** Spawns `command` and waits until Lethe says it listens; answers the child and the postmaster it uses. */
async function startLethe(command: string, args: string[], detached = false): Promise<Started> {
  const child = spawn(command, args, { cwd: ROOT, env: env(), detached, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + START_BOUND_MS;
  while (!/Lethe listening on /.test(output)) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      assert.fail(`Lethe did not start: ${output}`);
    }
    await sleep(100);
  }
  return { child, output: () => output, exited };
}

function runningPostmaster(): number {
  const pid = recordedPostmaster();
  assert.ok(pid !== undefined && postgresRuns(pid), 'the embedded PostgreSQL runs');
  return pid;
}

/** Waits (bounded) for the postmaster to be gone and its postmaster.pid removed. */
async function assertServerStopped(pid: number, started: Started): Promise<void> {
  const deadline = Date.now() + STOP_BOUND_MS;
  while ((postgresRuns(pid) || recordedPostmaster() !== undefined) && Date.now() < deadline) await sleep(100);
  const left = postgresRuns(pid);
  // A failed case must not leave its server to the next one.
  if (left) process.kill(pid, 'SIGINT');
  assert.equal(left, false, `postgres ${pid} still runs after Lethe stopped:\n${started.output()}`);
  assert.equal(recordedPostmaster(), undefined, 'postmaster.pid is removed (a clean shutdown)');
  // The bound's timer is cleared once Lethe has exited: left pending, it kept this file's process alive for
  // STOP_BOUND_MS (two minutes) after its last test, holding one of the run's concurrency slots.
  let bound: NodeJS.Timeout | undefined;
  await Promise.race([
    started.exited,
    new Promise((resolve) => (bound = setTimeout(resolve, STOP_BOUND_MS))),
  ]);
  clearTimeout(bound);
  assert.ok(started.child.exitCode !== null || started.child.signalCode !== null, 'Lethe has exited');
}

describe('stopping Lethe stops its embedded PostgreSQL', () => {
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'lethe-stop-'));
  });
  after(async () => {
    const pid = recordedPostmaster();
    if (pid !== undefined && postgresRuns(pid)) process.kill(pid, 'SIGINT');
    await rm(dir, { recursive: true, force: true });
  });

  // SIGTERM to npm's pid, and the port's closing, are test/cli/npm-start-signals.test.ts's.
  it("SIGINT to npm start's pid (npm forwards it to node)", SLOW, async () => {
    const started = await startLethe('npm', ['start']);
    const postmaster = runningPostmaster();
    started.child.kill('SIGINT');
    await assertServerStopped(postmaster, started);
  });

  it(
    'Ctrl-C in a terminal running npm start (a pseudo-terminal: npm and node both get SIGINT)',
    SLOW,
    async () => {
      // -e: script exits with the child's status; -f: flush output as it comes; -q: no banner.
      const started = await startLethe('script', ['-qfec', 'npm start', '/dev/null']);
      const postmaster = runningPostmaster();
      started.child.stdin?.write('\x03');
      await assertServerStopped(postmaster, started);
    },
  );

  it("SIGTERM to npm start's process group (as systemd or a terminal closing sends it)", SLOW, async () => {
    const started = await startLethe('npm', ['start'], true);
    const postmaster = runningPostmaster();
    process.kill(-(started.child.pid as number), 'SIGTERM');
    await assertServerStopped(postmaster, started);
  });

  it("SIGTERM to lethe's pid, then repeated signals while it stops", SLOW, async () => {
    const started = await startLethe(process.execPath, [BIN, 'serve']);
    const postmaster = runningPostmaster();
    started.child.kill('SIGTERM');
    // Whatever a second, third or fourth signal arrives while it finishes, the server is not abandoned.
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGTERM'] as const) {
      await sleep(20);
      started.child.kill(signal);
    }
    await assertServerStopped(postmaster, started);
  });

  it('SIGTERM after a restart that joined the server a killed Lethe left running', SLOW, async () => {
    const killed = await startLethe(process.execPath, [BIN, 'serve']);
    const orphan = runningPostmaster();
    killed.child.kill('SIGKILL');
    await killed.exited;
    assert.ok(postgresRuns(orphan), 'a Lethe killed with SIGKILL leaves its server running');

    const restarted = await startLethe(process.execPath, [BIN, 'serve']);
    assert.equal(runningPostmaster(), orphan, 'the restart joined the running server');
    restarted.child.kill('SIGTERM');
    await assertServerStopped(orphan, restarted);
  });
});
