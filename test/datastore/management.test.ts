import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '../../src/config.ts';
import { parseApiKeyCommand, runApiKeyCommand } from '../../src/cli/api-key-command.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { apiClient, createDatastore, issueKey, rowCounts } from '../helpers/area-b.ts';

describe('Area B control panel: datastores, API keys, maintenance, audit log', () => {
  let service: TestService;
  let root: string;
  before(async () => {
    service = await startTestService();
    root = await service.rootToken();
  });
  after(() => service.stop());

  async function clientWithScopes(scopes: string[]) {
    const created = await service.call('POST', '/v1/oauth/client', { token: root, json: { scopes } });
    const issued = await service.call('POST', '/v1/oauth/token', {
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: created.body.client_id,
        client_secret: created.body.client_secret,
      }),
    });
    return issued.body.access_token as string;
  }

  it('creates (201), lists and refuses a duplicate datastore (409)', async () => {
    const created = await service.call('POST', '/v1/datastore', {
      token: root,
      json: { name: 'crm', description: 'customer records' },
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.name, 'crm');
    assert.equal(created.body.description, 'customer records');
    const again = await service.call('POST', '/v1/datastore', { token: root, json: { name: 'crm' } });
    assert.equal(again.status, 409);
    assert.match(again.body.detail, /crm/);
    const listed = await service.call('GET', '/v1/datastore', { token: root });
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.filter((store: { name: string }) => store.name === 'crm').length, 1);
  });

  it('refuses bad datastore names and unknown fields with 422, creating nothing', async () => {
    const before = await service.call('GET', '/v1/datastore', { token: root });
    for (const json of [
      { name: 'Upper' },
      { name: '../etc' },
      { name: "x'; DROP TABLE entities; --" },
      { name: '' },
      { name: 'a'.repeat(64) },
      { name: 'ok', surprise: 1 },
      { description: 'no name' },
      { name: 7 },
    ]) {
      const answer = await service.call('POST', '/v1/datastore', { token: root, json });
      assert.equal(answer.status, 422, JSON.stringify(json));
      assert.equal(typeof answer.body.detail, 'string');
    }
    const afterwards = await service.call('GET', '/v1/datastore', { token: root });
    assert.deepEqual(afterwards.body, before.body);
  });

  it('guards the resources with the datastore:* and api-key:* scopes', async () => {
    assert.equal((await service.call('GET', '/v1/datastore')).status, 401);
    const reader = await clientWithScopes(['policy:read']);
    assert.equal((await service.call('GET', '/v1/datastore', { token: reader })).status, 403);
    assert.equal((await service.call('GET', '/v1/api-key', { token: reader })).status, 403);
    assert.equal((await service.call('GET', '/v1/audit-log', { token: reader })).status, 403);
    assert.equal(
      (await service.call('PUT', '/v1/maintenance', { token: reader, json: { enabled: true } })).status,
      403,
    );
    const keyAdmin = await clientWithScopes(['api-key:*']);
    assert.equal((await service.call('GET', '/v1/api-key', { token: keyAdmin })).status, 200);
    assert.equal((await service.call('GET', '/v1/datastore', { token: keyAdmin })).status, 403);
    for (const prefix of ['/v1', '/api/v1', '']) {
      assert.equal((await service.call('GET', `${prefix}/datastore`, { token: root })).status, 200, prefix);
    }
  });

  it('issues a key once, lists keys without it or its digest, and revokes it at once', async () => {
    await createDatastore(service, 'revocation');
    const issued = await service.call('POST', '/v1/api-key', {
      token: root,
      json: { name: 'billing', datastores: ['revocation'], rate_limit_per_minute: 500 },
    });
    assert.equal(issued.status, 201);
    assert.equal(issued.headers.get('cache-control'), 'no-store');
    assert.match(issued.body.key, /^lk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(issued.body.datastores, ['revocation']);
    assert.equal(issued.body.rate_limit_per_minute, 500);
    const secret = issued.body.key.split('_').slice(2).join('_');

    const listed = await service.call('GET', '/v1/api-key', { token: root });
    const entry = listed.body.find((key: { id: string }) => key.id === issued.body.id);
    assert.deepEqual(Object.keys(entry).sort(), [
      'created_at',
      'datastores',
      'id',
      'name',
      'rate_limit_per_minute',
    ]);
    assert.ok(!listed.text.includes(secret));
    const stored = await service.services.db.query<{ secret_digest: Uint8Array }>(
      'SELECT secret_digest FROM api_keys WHERE id = $1',
      [issued.body.id],
    );
    const digestHex = Buffer.from(stored.rows[0]?.secret_digest as Uint8Array).toString('hex');
    assert.ok(!listed.text.includes(digestHex));
    assert.ok(
      !Buffer.from(stored.rows[0]?.secret_digest as Uint8Array)
        .toString()
        .includes(secret),
    );

    const headers = { 'api-key': issued.body.key, datastore: 'revocation' };
    assert.equal((await service.call('POST', '/api/entity/get-by-id', { json: ['x'], headers })).status, 200);
    const revoked = await service.call('DELETE', `/v1/api-key/${issued.body.id}`, { token: root });
    assert.equal(revoked.status, 204);
    const next = await service.call('POST', '/api/entity/get-by-id', { json: ['x'], headers });
    assert.equal(next.status, 401);
    assert.equal(
      (await service.call('DELETE', `/v1/api-key/${issued.body.id}`, { token: root })).status,
      404,
    );
  });

  it('refuses malformed API key requests with 422, issuing nothing', async () => {
    const before = await service.call('GET', '/v1/api-key', { token: root });
    for (const json of [
      { name: 'x', datastores: [] },
      { name: 'x', datastores: ['BAD NAME'] },
      { name: 'x' },
      { datastores: ['crm'] },
      { name: 'x', datastores: ['crm'], rate_limit_per_minute: 0 },
      { name: 'x', datastores: ['crm'], rate_limit_per_minute: '10' },
      { name: 'x', datastores: ['crm'], admin: true },
    ]) {
      const answer = await service.call('POST', '/v1/api-key', { token: root, json });
      assert.equal(answer.status, 422, JSON.stringify(json));
    }
    const afterwards = await service.call('GET', '/v1/api-key', { token: root });
    assert.deepEqual(afterwards.body, before.body);
  });

  it('deletes a datastore with everything it holds (204), then 404', async () => {
    const api = await apiClient(service, 'doomed');
    const created = await api.call('/api/entity/create', {
      json: [{ name: 'users', attributes: [{ name: 'email', value: 'gone@example.com' }] }],
    });
    const form = new FormData();
    form.append(
      'attribute',
      JSON.stringify({ entityId: created.body[0].id, name: 'avatar', value: 'a.png' }),
    );
    form.append('file', new Blob([Buffer.alloc(1000, 1)], { type: 'image/png' }), 'a.png');
    assert.equal((await api.call('/api/file/upload', { body: form })).status, 200);
    assert.equal((await rowCounts(service, 'doomed')).chunks, 1);

    const removed = await service.call('DELETE', '/v1/datastore/doomed', { token: root });
    assert.equal(removed.status, 204);
    assert.deepEqual(await rowCounts(service, 'doomed'), {
      entities: 0,
      attributes: 0,
      index_entries: 0,
      references: 0,
      files: 0,
      chunks: 0,
    });
    const orphanChunks = await service.services.db.query(
      'SELECT 1 FROM entity_file_chunks c LEFT JOIN entity_files f ON f.id = c.file_id WHERE f.id IS NULL',
    );
    assert.equal(orphanChunks.rows.length, 0);
    const call = await api.call('/api/entity/get-by-id', { json: [created.body[0].id] });
    assert.equal(call.status, 403, 'the key no longer names the deleted datastore');
    assert.match(call.text, /doomed/);
    assert.equal((await service.call('DELETE', '/v1/datastore/doomed', { token: root })).status, 404);
  });

  it('takes a deleted datastore from its keys in the same transaction; a new one of its name is not theirs', async () => {
    await createDatastore(service, 'kept');
    const api = await apiClient(service, 'reborn');
    const both = await service.call('POST', '/v1/api-key', {
      token: root,
      json: { name: 'both', datastores: ['reborn', 'kept'] },
    });
    assert.equal((await service.call('DELETE', '/v1/datastore/reborn', { token: root })).status, 204);
    const keys = await service.call('GET', '/v1/api-key', { token: root });
    const named = (id: string) => keys.body.find((key: { id: string }) => key.id === id).datastores;
    assert.deepEqual(named(api.keyId), []);
    assert.deepEqual(named(both.body.id), ['kept']);
    const audit = await service.call('GET', '/v1/audit-log?action=datastore.delete', { token: root });
    const entry = audit.body.items.find((each: { datastore: string }) => each.datastore === 'reborn');
    assert.deepEqual(entry.details.api_keys, [api.keyId, both.body.id].sort());

    await createDatastore(service, 'reborn');
    for (const key of [api.key, both.body.key as string]) {
      const answer = await service.call('POST', '/api/entity/get-by-id', {
        json: [randomUUID()],
        headers: { 'api-key': key, datastore: 'reborn' },
      });
      assert.equal(answer.status, 403, answer.text);
    }
    const kept = await service.call('POST', '/api/entity/get-by-id', {
      json: [randomUUID()],
      headers: { 'api-key': both.body.key, datastore: 'kept' },
    });
    assert.equal(kept.status, 200, kept.text);
  });

  it('switches maintenance mode: 503 with Retry-After on /api, management keeps working', async () => {
    const api = await apiClient(service, 'maint');
    assert.deepEqual((await service.call('GET', '/v1/maintenance', { token: root })).body.enabled, false);
    const on = await service.call('PUT', '/v1/maintenance', { token: root, json: { enabled: true } });
    assert.equal(on.status, 200);
    assert.equal(on.body.enabled, true);
    for (const path of ['/api/entity/get-by-id', '/api/user/forget', '/api/file/download']) {
      const answer = await api.call(path, { json: {} });
      assert.equal(answer.status, 503, path);
      assert.equal(answer.headers.get('retry-after'), '60');
      assert.match(answer.headers.get('content-type') ?? '', /^text\/plain/);
    }
    const keyless = await service.call('POST', '/api/entity/get-by-id', {
      json: ['x'],
      headers: { datastore: 'maint' },
    });
    assert.equal(keyless.status, 503, 'maintenance is announced before the key is checked');
    assert.equal(keyless.headers.get('retry-after'), '60');
    assert.equal((await service.call('GET', '/v1/datastore', { token: root })).status, 200);
    assert.equal((await service.call('GET', '/v1/maintenance', { token: root })).body.enabled, true);
    assert.equal(
      (await service.call('PUT', '/v1/maintenance', { token: root, json: { enabled: 'yes' } })).status,
      422,
    );
    const off = await service.call('PUT', '/v1/maintenance', { token: root, json: { enabled: false } });
    assert.equal(off.body.enabled, false);
    assert.equal((await api.call('/api/entity/get-by-id', { json: ['x'] })).status, 200);
  });

  it('keeps an append-only audit log without values, paged and filtered', async () => {
    const api = await apiClient(service, 'audited');
    const created = await api.call('/api/entity/create', {
      json: [{ name: 'users', attributes: [{ name: 'email', value: 'secret-value@example.com' }] }],
    });
    const id = created.body[0].id as string;
    await api.call('/api/entity/get-by-id', { json: [id] });
    await api.call('/api/user/forget', { json: { entityId: id } });

    const all = await service.call('GET', `/v1/audit-log?datastore=audited&entity_id=${id}`, { token: root });
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.body.items.map((entry: { action: string }) => entry.action),
      ['user.forget', 'entity.get-by-id', 'entity.create'],
    );
    assert.equal(all.body.total, 3);
    for (const entry of all.body.items) {
      assert.equal(entry.actor, `api-key:${api.keyId}`);
      assert.match(entry.request_id, /^[0-9a-f-]{36}$/);
    }
    assert.deepEqual(all.body.items[0].details, { entities: 1, attributes: 1, files: 0 });
    const paged = await service.call('GET', `/v1/audit-log?datastore=audited&page=2&size=1&entity_id=${id}`, {
      token: root,
    });
    assert.equal(paged.body.items.length, 1);
    assert.equal(paged.body.items[0].action, 'entity.get-by-id');
    const byAction = await service.call('GET', '/v1/audit-log?action=api-key.issue', { token: root });
    assert.ok(byAction.body.items.length >= 1);
    assert.ok(byAction.body.items.every((entry: { action: string }) => entry.action === 'api-key.issue'));

    const raw = await service.services.db.query<{ row: string }>(
      'SELECT audit_log::text AS row FROM audit_log',
    );
    assert.ok(raw.rows.every((row) => !row.row.includes('secret-value')));
    await assert.rejects(
      service.services.db.query('UPDATE audit_log SET action = $1', ['tampered']),
      /append-only/,
    );
    await assert.rejects(service.services.db.query('DELETE FROM audit_log'), /append-only/);
    const bad = await service.call('GET', '/v1/audit-log?page=0', { token: root });
    assert.equal(bad.status, 422);
  });

  it('issues a key from the command line (lethe api-key create), printed once and usable at once', async () => {
    await createDatastore(service, 'cli-store');
    const printed = await runApiKeyCommand(
      service.services,
      parseApiKeyCommand(['create', '--name', 'ops', '--datastore', 'cli-store', '--rate-limit', '120']),
    );
    const issued = JSON.parse(printed);
    assert.equal(issued.name, 'ops');
    assert.deepEqual(issued.datastores, ['cli-store']);
    assert.equal(issued.rate_limit_per_minute, 120);
    const answer = await service.call('POST', '/api/entity/get-by-id', {
      json: ['x'],
      headers: { 'api-key': issued.key, datastore: 'cli-store' },
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('ratelimit-limit'), '120');
    const audit = await service.call('GET', '/v1/audit-log?action=api-key.issue', { token: root });
    assert.equal(audit.body.items[0].actor, 'client:cli');

    const before = await service.call('GET', '/v1/api-key', { token: root });
    for (const argv of [
      ['create', '--datastore', 'cli-store'],
      ['create', '--name', 'x'],
      ['create', '--name', 'x', '--datastore', 'Bad Name'],
      ['create', '--name', 'x', '--datastore', 'cli-store', '--rate-limit', '0'],
      ['create', '--name', 'x', '--datastore', 'cli-store', '--colour', 'red'],
      ['delete', '--name', 'x', '--datastore', 'cli-store'],
    ]) {
      assert.throws(() => parseApiKeyCommand(argv), ConfigError, argv.join(' '));
    }
    assert.deepEqual((await service.call('GET', '/v1/api-key', { token: root })).body, before.body);
  });

  it('rejects an issued key for datastores it was not granted, and honours "*"', async () => {
    await createDatastore(service, 'alpha');
    await createDatastore(service, 'beta');
    const wildcard = await issueKey(service, ['*']);
    const headers = (datastore: string) => ({ 'api-key': wildcard.key, datastore });
    for (const datastore of ['alpha', 'beta']) {
      const answer = await service.call('POST', '/api/entity/get-by-id', {
        json: ['x'],
        headers: headers(datastore),
      });
      assert.equal(answer.status, 200, datastore);
    }
    const missing = await service.call('POST', '/api/entity/get-by-id', {
      json: ['x'],
      headers: headers('gamma'),
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.text, 'The datastore "gamma" does not exist.');
  });
});
