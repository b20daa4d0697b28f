// HTTPS connection secrets the Fides way: PUT /api/v1/connection/{key}/secret, extra callback `headers`
// (validated, sealed, masked), and an OAuth PATCH that creates the configuration from a complete body.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createConnection, read, scopedToken } from '../connections/support.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const PUBLIC_URL = 'https://93.184.216.34/hooks';
const OAUTH = {
  grant_type: 'client_credentials',
  token_url: 'https://93.184.216.34/token',
  scope: 'hooks',
  client_id: 'lethe',
  client_secret: 'oauth-client-secret-value',
};

describe('Fides connection secrets', () => {
  let service: TestService;
  let token: string;
  before(async () => {
    service = await startTestService({}, { captureLogs: true });
    token = await service.rootToken();
  });
  after(async () => service.stop());

  const stored = async (key: string) => {
    const { rows } = await service.services.db.query<{
      secrets_url: string | null;
      secrets_headers_sealed: Uint8Array | null;
      secrets_header_names: string[] | null;
      updated_at: Date;
    }>(
      'SELECT secrets_url, secrets_headers_sealed, secrets_header_names, updated_at FROM connections WHERE key = $1',
      [key],
    );
    return rows[0];
  };

  it("PUT .../secret answers Fides' status message; the HTTPS test is skipped, or not run with verify=false", async () => {
    await createConnection(service, 'fides_secret');
    const answer = await service.call('PUT', '/api/v1/connection/fides_secret/secret', {
      token,
      json: { url: PUBLIC_URL, authorization: 'Bearer target-token' },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, {
      msg: 'Secrets updated for ConnectionConfig with key: fides_secret.',
      test_status: 'skipped',
      failure_reason: null,
    });
    const unverified = await service.call('PUT', '/api/v1/connection/fides_secret/secret?verify=false', {
      token,
      json: { url: PUBLIC_URL, authorization: 'Bearer target-token' },
    });
    assert.equal(unverified.body.test_status, null);
    const view = await read(service, '/v1/connection/fides_secret');
    assert.deepEqual(view.secrets, { url: PUBLIC_URL, authorization: '**********' });

    assert.equal(
      (await service.call('PUT', '/api/v1/connection/nope/secret', { token, json: { url: PUBLIC_URL } }))
        .status,
      404,
    );
    // Fides looks the connection up first: an unknown key answers 404 naming it, even when the key's
    // spelling or the body would fail Lethe's schema check (422 on Lethe's own path).
    for (const [key, json] of [
      ['nope', {}],
      ['Not.A-known_key', { url: PUBLIC_URL, extra: true }],
      ['-dash-first', { url: PUBLIC_URL }],
    ] as const) {
      const unknown = await service.call('PUT', `/api/v1/connection/${key}/secret`, { token, json });
      assert.equal(unknown.status, 404, unknown.text);
      assert.deepEqual(unknown.body, { detail: `No connection with key ${key}.` });
    }
    const reader = await scopedToken(service, ['connection:read']);
    assert.equal(
      (
        await service.call('PUT', '/api/v1/connection/fides_secret/secret', {
          token: reader,
          json: { url: PUBLIC_URL },
        })
      ).status,
      403,
    );
    const internal = await service.call('PUT', '/api/v1/connection/fides_secret/secret', {
      token,
      json: { url: 'https://10.0.0.5/hooks', authorization: 'x' },
    });
    assert.equal(internal.status, 422);
    assert.equal((await stored('fides_secret'))?.secrets_url, PUBLIC_URL);
  });

  it('stores headers sealed, answers their names with masked values, and replaces them with the secrets', async () => {
    await createConnection(service, 'with_headers');
    const headers = { 'X-Tenant': 'tenant-secret-value', 'X-Api-Version': '2024-01' };
    const answer = await service.call('PUT', '/v1/connection/with_headers', {
      token,
      json: { url: PUBLIC_URL, authorization: 'Bearer t', headers },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body.secrets, {
      url: PUBLIC_URL,
      authorization: '**********',
      headers: { 'X-Tenant': '**********', 'X-Api-Version': '**********' },
    });
    assert.equal(answer.text.includes('tenant-secret-value'), false);
    const row = await stored('with_headers');
    assert.ok(row?.secrets_headers_sealed);
    assert.equal(
      Buffer.from(row.secrets_headers_sealed).toString('latin1').includes('tenant-secret-value'),
      false,
    );
    assert.deepEqual(row.secrets_header_names, ['X-Tenant', 'X-Api-Version']);
    assert.ok(service.logLines.length > 0);
    assert.equal(
      service.logLines.some((line) => line.includes('tenant-secret-value')),
      false,
      'a header value is never logged',
    );

    const listed = await read(service, '/api/v1/connection');
    assert.equal(listed.pages, 1, "Lethe's lists carry Fides' pages");
    const paged = await read(service, '/api/v1/connection?size=1');
    assert.deepEqual([paged.pages, paged.items.length], [paged.total, 1]);
    const inList = listed.items.find((item: { key: string }) => item.key === 'with_headers');
    assert.deepEqual(Object.keys(inList.secrets.headers), ['X-Tenant', 'X-Api-Version']);

    // Secrets are replaced as a whole: a PUT without headers removes them.
    const without = await service.call('PUT', '/api/v1/connection/with_headers/secret', {
      token,
      json: { url: PUBLIC_URL, authorization: 'Bearer t' },
    });
    assert.equal(without.status, 200);
    assert.deepEqual((await read(service, '/v1/connection/with_headers')).secrets, {
      url: PUBLIC_URL,
      authorization: '**********',
    });
    assert.equal((await stored('with_headers'))?.secrets_headers_sealed, null);
  });

  it('refuses hop-by-hop, malformed, repeated and too many headers with 422 and changes nothing', async () => {
    await createConnection(service, 'guarded_headers');
    const kept = { url: PUBLIC_URL, headers: { 'X-Kept': 'kept-value' } };
    assert.equal(
      (await service.call('PUT', '/v1/connection/guarded_headers', { token, json: kept })).status,
      200,
    );
    const before = await stored('guarded_headers');

    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`X-H${index}`, 'v']));
    const refused: [string, Record<string, unknown>][] = [
      ['Host', { Host: 'evil.example' }],
      ['content-length', { 'content-length': '5' }],
      ['Transfer-Encoding', { 'Transfer-Encoding': 'chunked' }],
      ['CONNECTION', { CONNECTION: 'close' }],
      ['Content-Encoding', { 'Content-Encoding': 'gzip' }],
      ['cOOKIE', { cOOKIE: 'session=theirs' }],
      ['name with a space', { 'X Bad': 'v' }],
      ['empty name', { '': 'v' }],
      ['name with a colon', { 'X-Bad:': 'v' }],
      ['value with a line break', { 'X-Split': 'a\r\nX-Injected: 1' }],
      ['value not a string', { 'X-Number': 5 }],
      ['same name twice', { 'X-Twice': 'a', 'x-twice': 'b' }],
      ['21 headers', tooMany],
    ];
    for (const [label, headers] of refused) {
      for (const path of ['/v1/connection/guarded_headers', '/api/v1/connection/guarded_headers/secret']) {
        const answer = await service.call('PUT', path, {
          token,
          json: { url: `${PUBLIC_URL}/new`, headers },
        });
        assert.equal(answer.status, 422, `${label} on ${path}: ${answer.text}`);
        assert.match(answer.body.detail, /headers/, label);
        if (/^[A-Za-z-]+$/.test(label)) assert.match(answer.body.detail, new RegExp(label, 'i'), label);
      }
    }
    assert.deepEqual(await stored('guarded_headers'), before);
  });

  it('PATCH .../oauth creates the configuration from a complete body; an incomplete one is 422', async () => {
    await createConnection(service, 'oauth_by_patch');
    const incomplete = await service.call('PATCH', '/api/v1/connection/oauth_by_patch/oauth', {
      token,
      json: { scope: 'hooks', client_id: 'lethe' },
    });
    assert.equal(incomplete.status, 422);
    assert.match(incomplete.body.detail, /grant_type, token_url, client_secret/);
    assert.equal((await read(service, '/v1/connection/oauth_by_patch')).oauth, null);

    const created = await service.call('PATCH', '/v1/connection/oauth_by_patch/oauth', {
      token,
      json: OAUTH,
    });
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(created.body.oauth, { ...OAUTH, client_secret: '**********' });
    assert.equal(created.text.includes(OAUTH.client_secret), false);

    const changed = await service.call('PATCH', '/v1/connection/oauth_by_patch/oauth', {
      token,
      json: { scope: 'hooks other' },
    });
    assert.equal(changed.body.oauth.scope, 'hooks other');
    assert.equal(
      (await service.call('PATCH', '/v1/connection/nope/oauth', { token, json: OAUTH })).status,
      404,
    );
  });

  it("masks a URL's query values in every answer and log line, and stores the URL whole for calling", async () => {
    await createConnection(service, 'query_token');
    const url = `${PUBLIC_URL}?token=query-secret-value&tenant=acme-tenant-id`;
    const tokenUrl = `${OAUTH.token_url}?audience=oauth-query-secret`;
    const masked = `${PUBLIC_URL}?token=***&tenant=***`;
    const put = await service.call('PUT', '/api/v1/connection/query_token/secret', { token, json: { url } });
    assert.equal(put.status, 200, put.text);
    const oauth = await service.call('PUT', '/v1/connection/query_token/oauth', {
      token,
      json: { ...OAUTH, token_url: tokenUrl },
    });
    assert.equal(oauth.status, 200, oauth.text);
    assert.equal(oauth.body.oauth.token_url, `${OAUTH.token_url}?audience=***`);
    assert.equal(oauth.body.secrets.url, masked);
    const one = await read(service, '/v1/connection/query_token');
    assert.equal(one.secrets.url, masked);
    const listed = await read(service, '/api/v1/connection?size=200');
    const inList = listed.items.find((item: { key: string }) => item.key === 'query_token');
    assert.equal(inList.secrets.url, masked);
    assert.equal((await stored('query_token'))?.secrets_url, url, 'the stored URL keeps its query');
    // A form that sends back the URL it was shown (masked) leaves the stored URL as it was.
    const roundTrip = await service.call('PUT', '/api/v1/connection/query_token/secret', {
      token,
      json: { url: masked },
    });
    assert.equal(roundTrip.status, 200, roundTrip.text);
    const oauthRoundTrip = await service.call('PATCH', '/v1/connection/query_token/oauth', {
      token,
      json: { token_url: oauth.body.oauth.token_url, scope: 'hooks' },
    });
    assert.equal(oauthRoundTrip.status, 200, oauthRoundTrip.text);
    assert.equal((await stored('query_token'))?.secrets_url, url, 'a masked round-trip changes nothing');
    const { rows } = await service.services.db.query<{ oauth_token_url: string }>(
      "SELECT oauth_token_url FROM connections WHERE key = 'query_token'",
    );
    assert.equal(rows[0]?.oauth_token_url, tokenUrl);
    for (const secret of ['query-secret-value', 'acme-tenant-id', 'oauth-query-secret']) {
      assert.ok(!service.answers.some((answer) => answer.includes(secret)), `${secret} in an answer`);
      assert.ok(!service.logLines.some((line) => line.includes(secret)), `${secret} in the log`);
    }
  });
});
