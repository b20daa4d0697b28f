// The typed client shipped in clients/typescript/ (openapi-typescript's output for the served document)
// is current and compiles: every operationId and named schema of /openapi.json is in it, none it names is
// gone from the document, and tsc checks it strictly (library checks on) with a typed call using it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { type OpenApi, operations } from '../helpers/openapi-contract.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const GENERATED = new URL('../../clients/typescript/lethe-api.d.ts', import.meta.url);
const EXAMPLE = new URL('../../clients/typescript/example.ts', import.meta.url);

/** The member names of `export interface <name> {` (its direct members, four spaces in). */
function members(source: string, name: string): string[] {
  const start = source.indexOf(`export interface ${name} {\n`);
  assert.ok(start >= 0, `the generated file has no ${name}`);
  const end = source.indexOf('\n}\n', start);
  return [...source.slice(start, end).matchAll(/^ {4}"?([\w/{}.-]+)"?\??: /gm)].map((match) => match[1]!);
}

describe('the generated TypeScript client', () => {
  let service: TestService;
  let document: OpenApi;
  const source = readFileSync(GENERATED, 'utf8');
  before(async () => {
    service = await startTestService();
    document = (await service.call('GET', '/openapi.json')).body;
  });
  after(async () => service?.stop());

  it('has every operation and named schema of the served document, and nothing the document dropped', () => {
    const ids = operations(document)
      .map(({ operation }) => operation.operationId)
      .sort();
    assert.deepEqual(members(source, 'operations').sort(), ids, 'regenerate: see docs/openapi.md');
    const schemasBlock = source.slice(
      source.indexOf('    schemas: {'),
      source.indexOf('    responses: never;'),
    );
    const named = [...schemasBlock.matchAll(/^ {8}(\w+): /gm)].map((match) => match[1]).sort();
    assert.deepEqual(named, Object.keys(document.components.schemas).sort());
  });

  it('compiles under strict tsc with library checks on, with a typed call using it', () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const result = spawnSync(
      process.execPath,
      [
        tsc,
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        'false',
        '--target',
        'es2024',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--allowImportingTsExtensions',
        '--types',
        'node',
        new URL(GENERATED).pathname,
        new URL(EXAMPLE).pathname,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
  });
});
