// The house by folder (docs/architecture.md; issue 36): src/'s folders stand on floors, each above what it
// imports, with at most MAX_BACK_UP imports running back up (a feature the core calls by name, a kit that
// imports a domain) and no circle of files. scripts/folder-imports.ts counts them from the TypeScript import
// graph; the counter is first shown a planted tree whose figures are known.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { countFolderImports } from '../../scripts/folder-imports.ts';

const MAX_BACK_UP = 5;

describe('folder-level imports of src/', () => {
  it('counts the fewest arrows running back up, and the circles of files, in a planted tree', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'lethe-folders-'));
    try {
      const files: Record<string, string> = {
        // core/ and feature/ import each other (one arrow must run back up); kit/ is below both.
        'core/service.ts':
          "import { hook } from '../feature/hook.ts';\nimport { tool } from '../kit/tool.ts';",
        'feature/hook.ts': 'export const hook = 1;',
        'feature/plug.ts':
          "import { service } from '../core/service.ts';\nimport type { Tool } from '../kit/tool.ts';",
        'feature/other.ts': "import { service } from '../core/service.ts';",
        'kit/tool.ts': 'export const tool = 1;',
        // Two files of one folder that import each other: a circle.
        'kit/a.ts': "import { b } from './b.ts';",
        'kit/b.ts': "import { a } from './a.ts';",
        'main.ts': "import { service } from './core/service.ts';",
      };
      for (const [file, text] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(root, file)), { recursive: true });
        await writeFile(path.join(root, file), text);
      }
      const counted = countFolderImports(root);
      assert.equal(counted.rooms, 4);
      assert.equal(counted.exact, true);
      assert.equal(counted.backUp.length, 1, 'one of the two arrows between core/ and feature/');
      const [arrow] = counted.backUp;
      assert.deepEqual([arrow?.from, arrow?.to].sort(), ['core/', 'feature/']);
      assert.deepEqual(counted.circles, [['kit/a.ts', 'kit/b.ts']]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it(`has at most ${MAX_BACK_UP} folder-level imports running back up and no circle`, () => {
    const counted = countFolderImports();
    const listed = counted.backUp.map((arrow) => `${arrow.from} -> ${arrow.to}: ${arrow.imports.join(', ')}`);
    assert.ok(counted.exact, 'a knot too large for the exact count: the house has grown a tangle');
    assert.ok(
      counted.backUp.length <= MAX_BACK_UP,
      `${counted.backUp.length} arrows run back up (bound ${MAX_BACK_UP}):\n${listed.join('\n')}`,
    );
    assert.deepEqual(counted.circles, []);
  });
});
