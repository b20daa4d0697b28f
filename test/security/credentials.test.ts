// Credentials under attack, beyond what test/auth/management-auth.test.ts (missing, forged, expired,
// wrong-scope and deleted-client tokens) and test/datastore, test/api-keys (revocation at once, read isolation) prove:
// tampered tokens, credentials used in the wrong place, no secret stored in clear in any table, and a
// key of one datastore unable to change another's entities even by their ids.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type ApiClient, apiClient } from '../helpers/area-b.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('credentials under attack', () => {
  let service: TestService;
  let token: string;

  before(async () => {
    service = await startTestService();
    token = await service.rootToken();
  });
  after(() => service.stop());

  it('refuses a tampered management token wherever it is changed, and keeps the real one working', async () => {
    const swap = (text: string, index: number) =>
      `${text.slice(0, index)}${text[index] === 'A' ? 'B' : 'A'}${text.slice(index + 1)}`;
    const tampered = [
      swap(token, token.length - 1),
      swap(token, 4),
      swap(token, Math.floor(token.length / 2)),
      token.slice(0, -1),
      `${token}A`,
      token.replace(/^lat_/, 'lk_'),
      token.toUpperCase(),
      ` ${token}`.slice(0, -1),
    ];
    for (const candidate of tampered) {
      const answer = await service.call('GET', '/v1/oauth/client', { token: candidate });
      assert.equal(answer.status, 401, candidate);
      assert.equal(answer.body.detail, 'The access token is not valid or has expired.');
    }
    assert.equal((await service.call('GET', '/v1/oauth/client', { token })).status, 200);
  });

  it('does not take an API key as a management token, nor a management token as an API key', async () => {
    const client = await apiClient(service, 'crossed');
    const asToken = await service.call('GET', '/v1/datastore', { token: client.key });
    assert.equal(asToken.status, 401);
    const asKey = await service.call('POST', '/api/entity/get-by-id', {
      json: ['x'],
      headers: { 'api-key': token, datastore: 'crossed' },
    });
    assert.equal(asKey.status, 401);
    const asBearerKey = await service.call('POST', '/api/entity/get-by-id', {
      json: ['x'],
      headers: { authorization: `Bearer ${token}`, datastore: 'crossed' },
    });
    assert.equal(asBearerKey.status, 401);
  });

  it('stores no secret in clear in any table: API keys and client secrets only as SHA-256 digests', async () => {
    const client = await apiClient(service, 'at-rest');
    const created = await service.call('POST', '/v1/oauth/client', {
      token,
      json: { name: 'auditor', scopes: ['datastore:*'] },
    });
    assert.equal(created.status, 201);
    const clientSecret = created.body.client_secret as string;
    const keySecret = client.key.split('_').slice(2).join('_');
    const root = service.config.rootClient as { secret: string };
    const secrets = [client.key, keySecret, clientSecret, token, root.secret];

    const tables = await service.services.db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    assert.ok(tables.rows.length > 5);
    for (const { table_name: table } of tables.rows) {
      const { rows } = await service.services.db.query<{ row: string }>(
        `SELECT t::text AS row FROM "${table}" t`,
      );
      for (const { row } of rows) {
        for (const secret of secrets) {
          assert.ok(!row.includes(secret), `${table} holds a secret in clear`);
          assert.ok(!row.includes(Buffer.from(secret).toString('hex')), `${table} holds a secret as hex`);
        }
      }
    }
    const stored = await service.services.db.query<{ secret_digest: Uint8Array }>(
      'SELECT secret_digest FROM api_keys WHERE id = $1',
      [client.keyId],
    );
    assert.deepEqual(
      Buffer.from(stored.rows[0]?.secret_digest as Uint8Array),
      createHash('sha256').update(keySecret).digest(),
    );
  });

  it("keeps a key of datastore A from changing B's entities, even by their ids", async () => {
    const storeA: ApiClient = await apiClient(service, 'tenant-a');
    const storeB: ApiClient = await apiClient(service, 'tenant-b');
    const created = await storeB.call('/api/entity/create', {
      json: [{ name: 'users', attributes: [{ name: 'email', value: 'b-only@example.com' }] }],
    });
    const id = created.body[0].id as string;
    const before = await storeB.call('/api/entity/get-by-id', { json: [id] });

    const attempts: [string, unknown][] = [
      ['/api/attribute/update', [{ id, attributes: [{ name: 'email', value: 'stolen@example.com' }] }]],
      ['/api/attribute/delete', [{ id, attributes: [{ name: 'email' }] }]],
      ['/api/entity/delete', [id]],
      ['/api/user/delete', { entityId: id, attributeNames: 'users.email' }],
      ['/api/user/forget', { entityId: id }],
      ['/api/user/sar', { entityId: id, email: 'thief@example.com' }],
      ['/api/entity/get-by-identity', ['b-only@example.com']],
    ];
    for (const [path, json] of attempts) {
      const answer = await storeA.call(path, { json });
      assert.ok([200, 404].includes(answer.status), `${path}: ${answer.status}`);
      if (answer.status === 200) {
        const items = answer.body as { error: { code: string } | null; entities?: unknown[] }[];
        assert.ok(
          items.every((item) => item.error?.code === 'not_found' && (item.entities ?? []).length === 0),
          `${path}: ${answer.text}`,
        );
      }
    }
    const upload = new FormData();
    upload.append('attribute', JSON.stringify({ entityId: id, name: 'passport', value: 'p.txt' }));
    upload.append('file', new Blob(['forged']), 'p.txt');
    assert.equal((await storeA.call('/api/file/upload', { body: upload })).status, 404);
    const crossHeader = await storeA.call('/api/entity/get-by-id', {
      json: [id],
      headers: { datastore: 'tenant-b' },
    });
    assert.equal(crossHeader.status, 403);

    const afterwards = await storeB.call('/api/entity/get-by-id', { json: [id] });
    assert.deepEqual(afterwards.body, before.body);
  });
});
