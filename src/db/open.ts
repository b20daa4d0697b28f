// The store of a Lethe process: DATABASE_URL when set, else the embedded server of the data dir.
import type { Config } from '../config.ts';
import type { Database } from './database.ts';
import { acquireEmbeddedServer } from './embedded.ts';
import { openPostgres } from './postgres.ts';

export async function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<Database> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl, { kind: 'postgres' });
  const server = await acquireEmbeddedServer(config.dataDir);
  try {
    return await openPostgres(server.connectionString, { kind: 'embedded', afterClose: server.release });
  } catch (error) {
    await server.release();
    throw error;
  }
}
