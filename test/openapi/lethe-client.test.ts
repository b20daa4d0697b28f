// lethe/client (clients/typescript/index.js, the package's `exports["./client"]`) against a real service:
// an access request made, read back and listed through it, the token sent as a bearer; and the compiler
// refusing a call that does not fit the document (a wrong body, a wrong path parameter) while the right
// call compiles.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLetheClient, type Identity } from 'lethe/client';
import { startTestService, type TestService } from '../helpers/service.ts';

const CLIENT = fileURLToPath(new URL('../../clients/typescript/index.js', import.meta.url));

/** tsc --strict on one file that uses the client; its exit status and what it printed. */
function typeCheck(source: string): { status: number | null; output: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'lethe-client-'));
  try {
    const file = path.join(dir, 'call.ts');
    writeFileSync(file, source);
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const result = spawnSync(
      process.execPath,
      [
        tsc,
        '--noEmit',
        '--strict',
        '--target',
        'es2024',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--types',
        'node',
        file,
      ],
      { encoding: 'utf8' },
    );
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const callWith = (body: string, id = "'pri_1'") => `
import { createLetheClient, type Identity } from ${JSON.stringify(CLIENT)};
const lethe = createLetheClient({ baseUrl: 'http://127.0.0.1:8080', token: 't' });
export async function call(): Promise<string | undefined> {
  const { data } = await lethe.POST('/v1/privacy-request', { body: ${body} });
  const read = await lethe.GET('/v1/privacy-request/{id}', { params: { path: { id: ${id} } } });
  return (data?.succeeded[0]?.id ?? '') + (read.data?.status ?? '');
}
`;

describe('lethe/client', () => {
  let service: TestService;
  let token: string;
  before(async () => {
    service = await startTestService({ requireManualApproval: true });
    token = await service.rootToken();
  });
  after(async () => service?.stop());

  it('makes an access request, reads it back and finds it in the list, with the token as a bearer', async () => {
    const lethe = createLetheClient({ baseUrl: service.url, token });
    const created = await lethe.POST('/v1/privacy-request', {
      body: [{ policy_key: 'default_access_policy', identity: { email: 'ada@example.com' } as Identity }],
    });
    assert.equal(created.response.status, 200, JSON.stringify(created.error));
    assert.deepEqual(created.data?.failed, []);
    const request = created.data?.succeeded[0];
    assert.ok(request);
    assert.equal(request.status, 'pending');
    assert.equal(request.policy.key, 'default_access_policy');

    const read = await lethe.GET('/v1/privacy-request/{id}', { params: { path: { id: request.id } } });
    assert.equal(read.response.status, 200);
    assert.equal(read.data?.id, request.id);
    assert.deepEqual(read.data?.identity, { email: 'ada@example.com' });

    const listed = await lethe.GET('/v1/privacy-request', { params: { query: { request_id: request.id } } });
    assert.deepEqual(
      listed.data?.items.map((item) => item.id),
      [request.id],
    );
  });

  it('answers the API error as `error` ({"detail"}) without a token or for an unknown id', async () => {
    const anonymous = createLetheClient({ baseUrl: service.url });
    const refused = await anonymous.GET('/v1/privacy-request');
    assert.equal(refused.response.status, 401);
    assert.equal(typeof refused.error?.detail, 'string');

    const lethe = createLetheClient({ baseUrl: service.url, token });
    const missing = await lethe.GET('/v1/privacy-request/{id}', { params: { path: { id: 'pri_missing' } } });
    assert.equal(missing.response.status, 404);
    assert.equal(typeof missing.error?.detail, 'string');
  });

  it('compiles a call that fits the document and refuses one that does not', () => {
    const right = typeCheck(
      callWith("[{ policy_key: 'default_access_policy', identity: { email: 'a@b.c' } as Identity }]"),
    );
    assert.equal(right.status, 0, right.output);

    const wrongBody = typeCheck(
      callWith("[{ policy: 'default_access_policy', identity: { email: 'a@b.c' } as Identity }]"),
    );
    assert.notEqual(wrongBody.status, 0);
    assert.match(wrongBody.output, /'policy' does not exist|'policy_key' is missing/, wrongBody.output);

    const wrongParameter = typeCheck(
      callWith("[{ policy_key: 'p', identity: { email: 'a@b.c' } as Identity }]", '7'),
    );
    assert.notEqual(wrongParameter.status, 0);
    assert.match(
      wrongParameter.output,
      /Type 'number' is not assignable to type 'string'/,
      wrongParameter.output,
    );
  });
});
