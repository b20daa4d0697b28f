// A test run writes nothing git tracks: screenshots go to test-artifacts/ (git-ignored), and the three
// that illustrate the README and the docs reach docs/images/ only under LETHE_UPDATE_SCREENSHOTS=1. Every
// write into docs/ by a test file must sit under that condition.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const TEST_ROOT = path.resolve(import.meta.dirname, '..');
const WRITES = /\b(?:copyFile|writeFile|copyFileSync|writeFileSync|rename)\(/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('test runs and tracked files', () => {
  it('write into docs/ only under LETHE_UPDATE_SCREENSHOTS', () => {
    const unguarded: string[] = [];
    let guarded = 0;
    for (const file of testFiles(TEST_ROOT)) {
      const lines = readFileSync(file, 'utf8').split('\n');
      const docsTargets = new Set(
        lines
          .map((line) => /^const (\w+) = path\.resolve\(.*'(?:\.\.\/)+docs\//.exec(line)?.[1])
          .filter((name): name is string => name !== undefined),
      );
      lines.forEach((line, index) => {
        if (!WRITES.test(line) || ![...docsTargets].some((name) => line.includes(name))) return;
        const context = lines.slice(Math.max(0, index - 3), index).join('\n');
        if (context.includes('if (process.env.LETHE_UPDATE_SCREENSHOTS)')) guarded += 1;
        else unguarded.push(`${path.relative(TEST_ROOT, file)}:${index + 1}`);
      });
    }
    assert.deepEqual(unguarded, []);
    assert.ok(guarded >= 3, `the README's screenshots are still refreshable (${guarded})`);
  });
});
