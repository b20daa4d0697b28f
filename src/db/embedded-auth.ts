// Who may connect to the embedded PostgreSQL, and the bringing of a cluster made by an earlier Lethe up to
// it. Every connection, on the Unix socket as on TCP, authenticates by scram-sha-256 with the data dir's
// password (`postgres.password`, 0600); as root, the cluster belongs to lethe-postgres, the account Lethe
// runs PostgreSQL as. Earlier versions initialised clusters with `trust` for local connections (any local
// process reaching the socket could connect as anyone) and, as root, ran them as the distribution's
// `postgres` account: such a cluster is migrated on start, its data kept (embedded.ts calls these).
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { chown, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';

import { type Owner, run, SUPERUSER } from './embedded-cluster.ts';

const HBA_FILE = 'pg_hba.conf';
const SCRAM_ITERATIONS = 4096;

/** The method field of one pg_hba.conf record, or undefined for a comment, a blank or an include line. */
function hbaMethodIndex(fields: string[]): number | undefined {
  const type = fields[0];
  if (type === 'local') return 3;
  if (!type?.startsWith('host')) return undefined;
  // host DATABASE USER ADDRESS [MASK] METHOD: a mask comes only after an address without a /prefix.
  const address = fields[3] ?? '';
  const mask = fields[4] ?? '';
  return !address.includes('/') && /^[0-9a-fA-F.:]+$/.test(mask) && /[.:]/.test(mask) ? 5 : 4;
}

function records(text: string): { line: string; fields: string[]; method?: number }[] {
  return text.split('\n').map((line) => {
    const fields = line.replace(/#.*/, '').trim().split(/\s+/).filter(Boolean);
    return { line, fields, method: hbaMethodIndex(fields) };
  });
}

/** Whether any record of the cluster's pg_hba.conf lets a client in without a password. */
export async function hbaTrusts(cluster: string): Promise<boolean> {
  const text = await readFile(path.join(cluster, HBA_FILE), 'utf8');
  return records(text).some(({ fields, method }) => method !== undefined && fields[method] === 'trust');
}

/**
 * Rewrites every `trust` record of pg_hba.conf to `scram-sha-256`, keeping the rest (an operator's own
 * records, comments) as they are. Written beside it and renamed, so the server never reads half a file.
 */
export async function requirePassword(cluster: string, account: Owner | undefined): Promise<void> {
  const file = path.join(cluster, HBA_FILE);
  const rewritten = records(await readFile(file, 'utf8')).map(({ line, fields, method }) => {
    if (method === undefined || fields[method] !== 'trust') return line;
    const at = [...line.matchAll(/\S+/g)][method]?.index ?? 0;
    return `${line.slice(0, at)}scram-sha-256${line.slice(at + 'trust'.length)}`;
  });
  const staging = `${file}.${randomBytes(6).toString('hex')}`;
  await writeFile(staging, rewritten.join('\n'), { mode: 0o600 });
  if (account) await chown(staging, account.uid, account.gid);
  await rename(staging, file);
}

/**
 * The SCRAM-SHA-256 verifier PostgreSQL stores for a password (RFC 5802/7677, PostgreSQL's format), so
 * that ALTER ROLE carries no password in clear, not even to the server's log. The passwords Lethe makes
 * are base64url, which SASLprep leaves as they are.
 */
export function scramVerifier(password: string, salt = randomBytes(16)): string {
  const salted = pbkdf2Sync(password, salt, SCRAM_ITERATIONS, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${SCRAM_ITERATIONS}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/**
 * Makes a running server that still trusts local connections ask for the password: the superuser gets
 * the data dir's password (a cluster initialised with `trust` may have none), then pg_hba.conf is
 * rewritten and reloaded. `client` is connected to it (through trust).
 */
export async function securePasswordless(
  client: pg.Client,
  cluster: string,
  account: Owner | undefined,
  password: string,
): Promise<void> {
  await client.query(`ALTER ROLE ${SUPERUSER} PASSWORD ${client.escapeLiteral(scramVerifier(password))}`);
  await requirePassword(cluster, account);
  await client.query('SELECT pg_reload_conf()');
}

/** Whether the cluster's files belong to `account` (an earlier version's belong to `postgres`). */
export async function ownedBy(cluster: string, account: Owner): Promise<boolean> {
  const info = await stat(cluster);
  return info.uid === account.uid && info.gid === account.gid;
}

/** Gives the cluster, every file in it, to `account`. The server must not be running. */
export async function giveCluster(cluster: string, account: Owner): Promise<void> {
  await run('chown', ['-R', `${account.uid}:${account.gid}`, cluster]);
}

/** The real uid a process runs as (Linux), or undefined when it is gone or /proc is not there. */
export async function processUid(pid: number): Promise<number | undefined> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
  return uid === undefined ? undefined : Number(uid);
}
