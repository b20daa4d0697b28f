// lethe/client (clients/typescript/index.js, the package's `exports["./client"]`) against a real service:
// an access request made, read back and listed through it, the token sent as a bearer; and the compiler,
// strict with library checks on, taking the shipped client (its types, declarations and example) and a
// call that fits the document, and refusing calls that do not (a wrong body, a wrong path parameter).
// One compiler program checks them all: the generated types are large, and a tsc run for each file cost
// the suite a minute of CPU.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLetheClient, type Identity } from 'lethe/client';
import ts from 'typescript';
import { GENERATED } from '../../clients/typescript/generate.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const here = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const CLIENT = here('../../clients/typescript/index.js');
const SHIPPED = [
  GENERATED,
  here('../../clients/typescript/index.d.ts'),
  here('../../clients/typescript/example.ts'),
];

/** Each source's file in a temporary dir, all checked in one strict program; the errors of each file. */
function typeCheck(sources: Record<string, string>): Map<string, string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'lethe-client-'));
  try {
    const files = Object.entries(sources).map(([name, source]) => {
      const file = path.join(dir, `${name}.ts`);
      writeFileSync(file, source);
      return file;
    });
    const program = ts.createProgram([...SHIPPED, ...files], {
      noEmit: true,
      strict: true,
      skipLibCheck: false,
      target: ts.ScriptTarget.ES2024,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      allowImportingTsExtensions: true,
      types: ['node'],
    });
    const errors = new Map<string, string>();
    for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
      const file = diagnostic.file?.fileName ?? '(options)';
      const name = path.dirname(file) === dir ? path.basename(file, '.ts') : file;
      const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      errors.set(name, `${errors.get(name) ?? ''}${text}\n`);
    }
    return errors;
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

  it('compiles the shipped client and a call that fits the document, and refuses calls that do not', () => {
    const errors = typeCheck({
      right: callWith("[{ policy_key: 'default_access_policy', identity: { email: 'a@b.c' } as Identity }]"),
      wrongBody: callWith("[{ policy: 'default_access_policy', identity: { email: 'a@b.c' } as Identity }]"),
      wrongParameter: callWith("[{ policy_key: 'p', identity: { email: 'a@b.c' } as Identity }]", '7'),
    });
    assert.deepEqual(
      [...errors.keys()].sort(),
      ['wrongBody', 'wrongParameter'],
      [...errors].map(([file, text]) => `${file}: ${text}`).join('\n'),
    );
    assert.match(errors.get('wrongBody') ?? '', /'policy' does not exist|'policy_key' is missing/);
    assert.match(errors.get('wrongParameter') ?? '', /Type 'number' is not assignable to type 'string'/);
  });
});
