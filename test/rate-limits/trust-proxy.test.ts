// LETHE_TRUST_PROXY: X-Forwarded-For is believed only from a listed proxy. Without it, every client
// behind a proxy shares the proxy's address for the failed-authentication throttle (and a client could
// not dodge it by writing the header itself); with the proxy listed, each client is throttled on its own
// address, which the request log and the audit log name too.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { apiClient } from '../helpers/area-b.ts';

const LIMIT = 3;

async function wrongSecret(service: TestService, forwardedFor: string) {
  const answer = await service.call('POST', '/v1/oauth/token', {
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'nobody',
      client_secret: 'wrong',
    }),
    headers: { 'x-forwarded-for': forwardedFor },
  });
  return answer.status;
}

describe('LETHE_TRUST_PROXY', () => {
  const services: TestService[] = [];
  after(async () => {
    await Promise.all(services.map((service) => service.stop()));
  });

  it('is empty by default: X-Forwarded-For is ignored, so a client cannot pick its address', async () => {
    const service = await startTestService({ authFailuresPerMinute: LIMIT });
    services.push(service);
    const statuses = [];
    for (let attempt = 0; attempt <= LIMIT; attempt += 1) {
      statuses.push(await wrongSecret(service, `198.51.100.${attempt + 1}`));
    }
    assert.deepEqual(statuses, [401, 401, 401, 429]);
  });

  it('when it lists the proxy, each forwarded client is throttled on its own address and logged by it', async () => {
    const service = await startTestService(
      { authFailuresPerMinute: LIMIT, trustProxy: ['127.0.0.1', '::1'] },
      { captureLogs: true },
    );
    services.push(service);
    for (let attempt = 0; attempt < LIMIT; attempt += 1) {
      assert.equal(await wrongSecret(service, '203.0.113.7'), 401);
    }
    assert.equal(await wrongSecret(service, '203.0.113.7'), 429);
    assert.equal(await wrongSecret(service, '203.0.113.8'), 401, 'another client behind the proxy');
    assert.equal(await wrongSecret(service, '198.51.100.1, 203.0.113.7'), 429, 'the nearest untrusted hop');
    assert.ok(service.logLines.some((line) => line.includes('"remoteAddress":"203.0.113.8"')));
  });

  it('the audit log records the address the throttles see: the forwarded client only behind a listed proxy', async () => {
    const forwarded = { 'x-forwarded-for': '203.0.113.9' };
    const addressesOf = async (service: TestService) => {
      const token = await service.rootToken();
      const api = await apiClient(service, 'audited');
      const created = await service.call('POST', '/v1/datastore', {
        token,
        json: { name: 'changed' },
        headers: forwarded,
      });
      assert.equal(created.status, 201, created.text);
      const read = await api.call('/api/entity/get-by-id', {
        json: [crypto.randomUUID()],
        headers: forwarded,
      });
      assert.equal(read.status, 200, read.text);
      const audit = await service.call('GET', '/v1/audit-log?size=100', { token });
      assert.equal(audit.status, 200, audit.text);
      const entries: { action: string; client_address: string | null }[] = audit.body.items;
      return ['datastore.create', 'entity.get-by-id'].map(
        (action) =>
          entries.find((entry) => entry.action === action && entry.client_address !== null)?.client_address,
      );
    };

    const behindProxy = await startTestService({ trustProxy: ['127.0.0.1', '::1'] });
    services.push(behindProxy);
    assert.deepEqual(await addressesOf(behindProxy), ['203.0.113.9', '203.0.113.9']);

    const direct = await startTestService();
    services.push(direct);
    const [change, read] = await addressesOf(direct);
    assert.match(change ?? '', /^(::ffff:)?127\.0\.0\.1$|^::1$/);
    assert.equal(read, change);
  });

  it('takes addresses and CIDRs, and stops on anything else', () => {
    assert.deepEqual(loadConfig({ LETHE_TRUST_PROXY: ' 10.0.0.0/8, fd00::/8 ,192.0.2.1' }).trustProxy, [
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.1',
    ]);
    assert.deepEqual(loadConfig({}).trustProxy, []);
    for (const bad of ['loopback', '10.0.0.0/33', 'proxy.example.com', '10.0.0.1/8/1']) {
      assert.throws(() => loadConfig({ LETHE_TRUST_PROXY: bad }), ConfigError, bad);
    }
  });
});
