// Operator passwords: chosen by people, so unlike the random secrets of credentials.ts they get a slow,
// salted hash (scrypt, node:crypto). The cost parameters are stored with each hash, so raising them
// later leaves existing hashes verifiable. A password never leaves this module except as its hash.
// Each hash costs about 50 ms of a core and 32 MiB, so each waits for a turn (hash-turns.ts: two at once,
// a bounded queue, HashingBusy past it).
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { inHashTurn } from './hash-turns.ts';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

/** N=2^15, r=8, p=1: OWASP's scrypt minimum; about 50 ms and 32 MiB per hash. */
const COST = { N: 32768, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

interface Cost {
  N: number;
  r: number;
  p: number;
}

/** Each hash waits for its turn (hash-turns.ts), under the caller's key (its address). */
function derive(password: string, salt: Buffer, cost: Cost, turnKey: string): Promise<Buffer> {
  return inHashTurn(turnKey, () => deriveNow(password, salt, cost));
}

function deriveNow(password: string, salt: Buffer, cost: Cost): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFC'),
      salt,
      KEY_LENGTH,
      { ...cost, maxmem: 256 * cost.N * cost.r },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/** `turnKey`: whose turn this is (the caller's address), for fairness among waiting hashes. */
export async function hashPassword(password: string, turnKey = ''): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST, turnKey);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string, turnKey = ''): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(
    password,
    Buffer.from(salt, 'base64url'),
    { N: Number(n), r: Number(r), p: Number(p) },
    turnKey,
  );
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

let unknownUserHash: Promise<string> | undefined;

/**
 * A hash of a password nobody has, verified when the username is unknown so that a wrong name and a wrong
 * password take the same time (the answer does not reveal which operators exist).
 */
export function hashOfNobody(): Promise<string> {
  unknownUserHash ??= hashPassword(randomBytes(24).toString('base64url')).catch((error: unknown) => {
    unknownUserHash = undefined;
    throw error;
  });
  return unknownUserHash;
}
