// The typed client shipped in clients/typescript/ is current: the committed document snapshot
// (openapi.json) is the document the service serves, and the committed types (lethe-api.d.ts) are what the
// pinned openapi-typescript makes of the snapshot (generate.ts, `npm run generate:client`). That they
// compile strictly, with the client's declarations and a typed call, is lethe-client.test.ts's.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GENERATED, generateTypes, SNAPSHOT } from '../../clients/typescript/generate.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('the generated TypeScript client', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(async () => service?.stop());

  it('has a snapshot equal to the served document', async () => {
    const served = (await service.call('GET', '/openapi.json')).body;
    const snapshot: unknown = JSON.parse(readFileSync(SNAPSHOT, 'utf8'));
    assert.deepEqual(
      snapshot,
      served,
      'the document changed: run `npm run generate:client -- --from <url of a running Lethe>` (docs/openapi.md)',
    );
  });

  it('has the types openapi-typescript makes of the snapshot', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lethe-generate-'));
    try {
      const output = path.join(dir, 'lethe-api.d.ts');
      generateTypes(SNAPSHOT, output);
      assert.ok(
        readFileSync(output, 'utf8') === readFileSync(GENERATED, 'utf8'),
        'lethe-api.d.ts is stale: run `npm run generate:client` (docs/openapi.md)',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
