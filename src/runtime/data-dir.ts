// First start of an installation: when the operator gave no encryption key or root client, generate
// them into the data dir (mode 0600) and print them once. Later starts read the same files.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Config, ConfigError, parseEncryptionKey } from '../config.ts';
import { generateSecret } from '../crypto/credentials.ts';

export interface InstallationSecrets {
  encryptionKey: Buffer;
  rootClient: { id: string; secret: string };
}

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function writeOnce(file: string, content: string): Promise<boolean> {
  try {
    await writeFile(file, content, { mode: 0o600, flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** The first words of the one message that carries the generated root client's secret. */
export const ROOT_CLIENT_ANNOUNCEMENT = 'Generated the root management client';

export async function loadInstallationSecrets(
  config: Config,
  announce: (message: string) => void,
): Promise<InstallationSecrets> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });

  let encryptionKey = config.encryptionKey;
  if (!encryptionKey) {
    const keyFile = path.join(config.dataDir, 'encryption.key');
    if (await writeOnce(keyFile, `${randomBytes(32).toString('hex')}\n`)) {
      announce(
        `Generated an encryption key in ${keyFile}; back it up: without it stored secrets cannot be read.`,
      );
    }
    encryptionKey = parseEncryptionKey((await readIfPresent(keyFile)) ?? '', keyFile);
  }

  let rootClient = config.rootClient;
  if (!rootClient) {
    const clientFile = path.join(config.dataDir, 'root-client.json');
    const generated = { client_id: `root_${generateSecret(8)}`, client_secret: generateSecret() };
    if (await writeOnce(clientFile, `${JSON.stringify(generated, null, 2)}\n`)) {
      announce(
        `${ROOT_CLIENT_ANNOUNCEMENT} (stored in ${clientFile}):\n  client_id:     ${generated.client_id}\n  client_secret: ${generated.client_secret}`,
      );
    }
    const stored = JSON.parse((await readIfPresent(clientFile)) ?? '{}') as Record<string, unknown>;
    if (typeof stored.client_id !== 'string' || typeof stored.client_secret !== 'string') {
      throw new ConfigError(
        `${clientFile} is damaged; delete it or set LETHE_ROOT_CLIENT_ID and LETHE_ROOT_CLIENT_SECRET.`,
      );
    }
    rootClient = { id: stored.client_id, secret: stored.client_secret };
  }
  return { encryptionKey, rootClient };
}
