// Callbacks authenticated by OAuth tokens from a real token endpoint and signed with the connection's
// signing secret, end to end through the worker.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifySignature } from '../../src/callbacks/signing.ts';
import { startTokenEndpoint, type TokenEndpoint } from '../callbacks/token-endpoint.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  connectionTo,
  engineConfig,
  logOf,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from './support.ts';

describe('OAuth and signed callbacks', () => {
  let service: TestService;
  let receiver: Receiver;
  let tokens: TokenEndpoint;
  let token: string;
  before(async () => {
    receiver = await startReceiver();
    tokens = await startTokenEndpoint();
    service = await startTestService(engineConfig, { worker: true });
    token = await service.rootToken();
  });
  after(async () => {
    await service.stop();
    await receiver.close();
    await tokens.close();
  });

  async function policyCalling(policyKey: string, connectionKey: string, direction = 'two_way') {
    await service.call('PATCH', '/v1/dsr/policy', { token, json: [{ name: policyKey, key: policyKey }] });
    const put = await service.call('PUT', `/v1/policy/${policyKey}/webhook/pre_execution`, {
      token,
      json: [{ connection_config_key: connectionKey, direction, key: 'hook', name: 'hook' }],
    });
    assert.equal(put.status, 200, put.text);
  }

  const setOAuth = (connectionKey: string, clientId: string, tokenPath = '/token') =>
    service.call('PUT', `/v1/connection/${connectionKey}/oauth`, {
      token,
      json: {
        grant_type: 'client_credentials',
        token_url: `${tokens.origin}${tokenPath}`,
        scope: 'callbacks',
        client_id: clientId,
        client_secret: `secret-of-${clientId}`,
      },
    });

  const callsFor = (path: string, id: string) =>
    receiver.callsTo(path).filter((call) => call.body.privacy_request_id === id);

  it('presents a cached OAuth token, refetches once on a 401, and signs every callback', async () => {
    const signingSecret = await connectionTo(service, 'oauth_target', `${receiver.url}/oauth`);
    assert.equal((await setOAuth('oauth_target', 'client-a')).status, 200);
    await policyCalling('oauth_policy', 'oauth_target');
    const refused = new Set<string>();
    receiver.on('/oauth', (call) =>
      refused.has(String(call.headers.authorization)) ? { status: 401 } : { body: {} },
    );

    const first = await submit(service, {
      policy_key: 'oauth_policy',
      identity: { email: 'o1@example.com' },
    });
    await waitForStatus(service, first.id, 'complete');
    const second = await submit(service, {
      policy_key: 'oauth_policy',
      identity: { email: 'o2@example.com' },
    });
    await waitForStatus(service, second.id, 'complete');
    const [firstCall] = callsFor('/oauth', first.id);
    const [secondCall] = callsFor('/oauth', second.id);
    assert.match(String(firstCall?.headers.authorization), /^Bearer token-\d+-callbacks$/);
    assert.equal(secondCall?.headers.authorization, firstCall?.headers.authorization, 'the token is cached');
    assert.equal(tokens.callsFor('client-a').length, 1);
    const [tokenCall] = tokens.callsFor('client-a');
    assert.deepEqual(tokenCall?.basic, { clientId: 'client-a', clientSecret: 'secret-of-client-a' });
    assert.equal(tokenCall?.form.grant_type, 'client_credentials');

    for (const call of [firstCall, secondCall]) {
      assert.ok(call);
      assert.ok(
        verifySignature(String(call.headers['lethe-signature']), call.raw, signingSecret),
        'Lethe-Signature verifies over the raw body',
      );
      assert.equal(
        verifySignature(String(call.headers['lethe-signature']), `${call.raw} `, signingSecret),
        false,
      );
    }

    refused.add(String(firstCall?.headers.authorization));
    const third = await submit(service, {
      policy_key: 'oauth_policy',
      identity: { email: 'o3@example.com' },
    });
    await waitForStatus(service, third.id, 'complete');
    const thirdCalls = callsFor('/oauth', third.id);
    assert.equal(thirdCalls.length, 2);
    assert.equal(thirdCalls[0]?.headers.authorization, firstCall?.headers.authorization);
    assert.notEqual(thirdCalls[1]?.headers.authorization, firstCall?.headers.authorization, 'a fresh token');
    assert.equal(tokens.callsFor('client-a').length, 2);
    const log = await logOf(service, third.id);
    assert.deepEqual(
      log.filter((entry) => entry.kind === 'webhook').map((entry) => entry.http_status),
      [401, 200],
    );
    const everything = JSON.stringify([log, service.answers]);
    assert.equal(everything.includes('secret-of-client-a'), false);
    assert.equal(everything.includes(String(firstCall?.headers.authorization).slice(7)), false);
  });

  it('sends the static authorization again once the oauth resource is deleted', async () => {
    await connectionTo(service, 'fallback_target', `${receiver.url}/fallback`, 'Basic c3RhdGlj');
    assert.equal((await setOAuth('fallback_target', 'client-b')).status, 200);
    await policyCalling('fallback_policy', 'fallback_target', 'one_way');
    const withOAuth = await submit(service, {
      policy_key: 'fallback_policy',
      identity: { email: 'f@example.com' },
    });
    await waitForStatus(service, withOAuth.id, 'complete');
    assert.match(String(callsFor('/fallback', withOAuth.id)[0]?.headers.authorization), /^Bearer token-/);

    const removed = await service.call('DELETE', '/v1/connection/fallback_target/oauth', { token });
    assert.equal(removed.status, 200, removed.text);
    const without = await submit(service, {
      policy_key: 'fallback_policy',
      identity: { email: 'g@example.com' },
    });
    await waitForStatus(service, without.id, 'complete');
    assert.equal(callsFor('/fallback', without.id)[0]?.headers.authorization, 'Basic c3RhdGlj');
  });

  it('puts the request in error when the token cannot be obtained, without the secret in the reason', async () => {
    await connectionTo(service, 'broken_target', `${receiver.url}/broken`);
    assert.equal((await setOAuth('broken_target', 'client-c', '/server-error')).status, 200);
    await policyCalling('broken_policy', 'broken_target', 'one_way');
    const created = await submit(service, {
      policy_key: 'broken_policy',
      identity: { email: 'b@example.com' },
    });
    await waitForStatus(service, created.id, 'error');
    assert.equal(callsFor('/broken', created.id).length, 0);
    const log = await logOf(service, created.id);
    const reason = log.find((entry) => entry.to_status === 'error').error as string;
    assert.match(reason, /OAuth token for connection broken_target could not be obtained/);
    assert.equal(JSON.stringify(log).includes('secret-of-client-c'), false);
  });
});
