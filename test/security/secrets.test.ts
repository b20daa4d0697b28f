// No secret leaves the service except once, in the answer that created it: the pattern of
// test/connections/secrets.test.ts (connection authorization and OAuth client secrets) extended to the root
// client secret, management client secrets, access tokens and API keys, including guessed and revoked
// ones, over a full session with every log line captured at debug level.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('credentials never leave the service but once', () => {
  let service: TestService;

  before(async () => {
    service = await startTestService({}, { captureLogs: true });
  });
  after(() => service.stop());

  it('keeps the root secret, client secrets, tokens and API keys out of every later answer and every log line', async () => {
    const root = service.config.rootClient as { id: string; secret: string };
    const guess = (label: string) => `${label}-${randomBytes(16).toString('base64url')}`;
    const tokenRequest = (clientId: string, secret: string) =>
      service.call('POST', '/v1/oauth/token', {
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: secret,
        }),
      });
    /** secret -> how many answers may hold it (its creation answer). */
    const secrets = new Map<string, number>([[root.secret, 0]]);

    const rootToken = await tokenRequest(root.id, root.secret);
    assert.equal(rootToken.status, 200);
    const token = rootToken.body.access_token as string;
    secrets.set(token, 1);
    const basic = await service.call('POST', '/v1/oauth/token', {
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
      headers: { authorization: `Basic ${Buffer.from(`${root.id}:${root.secret}`).toString('base64')}` },
    });
    assert.equal(basic.status, 200);
    secrets.set(basic.body.access_token, 1);
    for (const wrong of [guess('root-guess'), `${root.secret}x`, root.secret.slice(1)]) {
      secrets.set(wrong, 0);
      assert.equal((await tokenRequest(root.id, wrong)).status, 401);
    }
    const unknownClient = guess('unknown-client-secret');
    secrets.set(unknownClient, 0);
    assert.equal((await tokenRequest('cli_nobody', unknownClient)).status, 401);

    const client = await service.call('POST', '/v1/oauth/client', {
      token,
      json: { name: 'dpo', scopes: ['datastore:*', 'api-key:*'] },
    });
    assert.equal(client.status, 201);
    assert.equal(client.headers.get('cache-control'), 'no-store');
    const clientSecret = client.body.client_secret as string;
    secrets.set(clientSecret, 1);
    const clientToken = await tokenRequest(client.body.client_id, clientSecret);
    assert.equal(clientToken.status, 200);
    secrets.set(clientToken.body.access_token, 1);
    const dpo = clientToken.body.access_token as string;

    assert.equal(
      (await service.call('POST', '/v1/datastore', { token: dpo, json: { name: 'vault' } })).status,
      201,
    );
    const issued = await service.call('POST', '/v1/api-key', {
      token: dpo,
      json: { name: 'backend', datastores: ['vault'] },
    });
    assert.equal(issued.status, 201);
    const key = issued.body.key as string;
    secrets.set(key, 1);
    secrets.set(key.split('_').slice(2).join('_'), 1);
    const headers = { 'api-key': key, datastore: 'vault' };
    const created = await service.call('POST', '/api/entity/create', {
      json: [{ name: 'users', attributes: [{ name: 'email', value: 'ada@example.com' }] }],
      headers,
    });
    assert.equal(created.status, 203);
    const id = created.body[0].id as string;
    for (const [path, json] of [
      ['/api/entity/get-by-id', [id]],
      ['/api/entity/get-by-identity', ['ada@example.com']],
      ['/api/user/sar', { entityId: id, email: 'ada@example.com' }],
    ] as const) {
      assert.equal((await service.call('POST', path, { json, headers })).status, 200, path);
      const bearer = { authorization: `Bearer ${key}`, datastore: 'vault' };
      assert.equal((await service.call('POST', path, { json, headers: bearer })).status, 200, path);
    }
    const forged = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    secrets.set(forged, 0);
    assert.equal(
      (
        await service.call('POST', '/api/entity/get-by-id', {
          json: [id],
          headers: { ...headers, 'api-key': forged },
        })
      ).status,
      401,
    );
    const listed = await service.call('GET', '/v1/api-key', { token: dpo });
    assert.equal(listed.status, 200);
    assert.equal((await service.call('DELETE', `/v1/api-key/${issued.body.id}`, { token: dpo })).status, 204);
    assert.equal((await service.call('POST', '/api/entity/get-by-id', { json: [id], headers })).status, 401);

    assert.equal(
      (await service.call('DELETE', `/v1/oauth/client/${client.body.client_id}`, { token })).status,
      204,
    );
    assert.equal((await tokenRequest(client.body.client_id, clientSecret)).status, 401);
    assert.equal((await service.call('GET', '/v1/datastore', { token: dpo })).status, 401);

    assert.ok(
      service.logLines.some((line) => line.includes('request completed')),
      'request lines are captured',
    );
    assert.ok(
      service.logLines.some((line) => line.includes('"statusCode":401')),
      'refusals are captured',
    );
    for (const [secret, allowed] of secrets) {
      const holding = service.answers.filter((text) => text.includes(secret));
      assert.equal(
        holding.length,
        allowed,
        `${secret} is in ${holding.length} answers: ${holding.join('\n')}`,
      );
      for (const line of service.logLines)
        assert.ok(!line.includes(secret), `a log line holds ${secret}: ${line}`);
    }
  });
});
