// Shared steps of the Area A tests, all over real HTTP: scoped clients and connections set up through the API.
import assert from 'node:assert/strict';
import type { TestService } from '../helpers/service.ts';

/** A token for a new management client holding exactly `scopes`. */
export async function scopedToken(service: TestService, scopes: string[]): Promise<string> {
  const created = await service.call('POST', '/v1/oauth/client', {
    token: await service.rootToken(),
    json: { name: `client for ${scopes.join(' ') || 'nothing'}`, scopes },
  });
  assert.equal(created.status, 201, created.text);
  const issued = await service.call('POST', '/v1/oauth/token', {
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: created.body.client_id,
      client_secret: created.body.client_secret,
    }),
  });
  assert.equal(issued.status, 200, issued.text);
  return issued.body.access_token as string;
}

/** Creates (or updates) an https connection with the given key and answers it as the API returned it. */
export async function createConnection(service: TestService, key: string, name = `Connection ${key}`) {
  const answer = await service.call('PATCH', '/v1/connection', {
    token: await service.rootToken(),
    json: [{ name, key, connection_type: 'https', access: 'read' }],
  });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.failed.length, 0, answer.text);
  return answer.body.succeeded[0];
}

/** GETs a path with the root token and answers the parsed body, asserting 200. */
export async function read(service: TestService, path: string) {
  const answer = await service.call('GET', path, { token: await service.rootToken() });
  assert.equal(answer.status, 200, `${path}: ${answer.text}`);
  return answer.body;
}
