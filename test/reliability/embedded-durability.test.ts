// Durability on the embedded store. `lethe serve` runs as a child process on PGlite in its own data dir;
// the test writes through the API (Area A and Area B), SIGKILLs the process the moment the last answer
// arrives, starts it again on the same data dir and reads everything back.
// Proves: every write acknowledged with a 2xx survives a SIGKILL of the embedded-store process (the
// restart waits out the lock the killed process left on the data dir), and a second process cannot open
// a data dir that a running one holds.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { managementToken, timedCall } from './support/http.ts';
import { type LetheProcess, startLethe } from './support/processes.ts';

const WRITES = 40;

describe('durability of acknowledged writes on the embedded store', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let lethe: LetheProcess;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'lethe-embedded-durability-'));
    env = {
      LETHE_DATA_DIR: dataDir,
      LETHE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      LETHE_ROOT_CLIENT_ID: 'durability-root',
      LETHE_ROOT_CLIENT_SECRET: randomBytes(24).toString('hex'),
      DATABASE_URL: '',
    };
    lethe = await startLethe('serve', env);
  });
  after(async () => {
    if (lethe?.alive()) await lethe.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged write across a SIGKILL', async () => {
    const login = () =>
      managementToken(lethe.url, env.LETHE_ROOT_CLIENT_ID as string, env.LETHE_ROOT_CLIENT_SECRET as string);
    let token = await login();
    assert.equal(
      (await timedCall(lethe.url, 'POST', '/v1/datastore', { token, json: { name: 'kept' } })).status,
      201,
    );
    const key = await timedCall(lethe.url, 'POST', '/v1/api-key', {
      token,
      json: { name: 'durability', datastores: ['kept'], rate_limit_per_minute: 1_000_000 },
    });
    assert.equal(key.status, 201, key.text);
    const area = { 'api-key': key.body.key as string, datastore: 'kept' };

    const connections: string[] = [];
    const entities: { id: string; email: string }[] = [];
    for (let index = 0; index < WRITES; index++) {
      const connection = `kept_${index}`;
      const upsert = await timedCall(lethe.url, 'PATCH', '/v1/connection', {
        token,
        json: [{ key: connection, name: connection, connection_type: 'https', access: 'read' }],
      });
      assert.equal(upsert.status, 200, upsert.text);
      connections.push(connection);
      const entity = { id: randomUUID(), email: `kept-${index}@example.com` };
      const created = await timedCall(lethe.url, 'POST', '/api/entity/create', {
        headers: area,
        json: [{ id: entity.id, name: 'users', attributes: [{ name: 'email', value: entity.email }] }],
      });
      assert.equal(created.status, 203, created.text);
      entities.push(entity);
    }
    assert.equal(await lethe.kill('SIGKILL'), 'SIGKILL');

    lethe = await startLethe('serve', env);
    token = await login();
    for (const connection of connections) {
      assert.equal(
        (await timedCall(lethe.url, 'GET', `/v1/connection/${connection}`, { token })).status,
        200,
        `${connection} survived`,
      );
    }
    const read = await timedCall(lethe.url, 'POST', '/api/entity/get-by-id', {
      headers: area,
      json: entities.map((entity) => entity.id),
    });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(
      read.body.map((entity: { attributes: { value: string }[] }) => entity.attributes[0]?.value),
      entities.map((entity) => entity.email),
    );
  });

  it('refuses a second process on the data dir while serve holds it, and serve goes on', async () => {
    await assert.rejects(
      startLethe('worker', env),
      /exited while starting \(1\)[\s\S]*is open in another Lethe process/,
    );
    const health = await fetch(`${lethe.url}/health`);
    assert.equal(health.status, 200);
  });
});
