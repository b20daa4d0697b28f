import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');

it('runs the published command with the V8 flags and environment of npm start, --expose-gc for file streaming included', async () => {
  const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const startFlags = manifest.scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
  const shebang = (await readFile(path.join(ROOT, 'bin/lethe.mjs'), 'utf8')).split('\n')[0] ?? '';
  assert.deepEqual(
    shebang.split(/\s+/).filter((word) => word.startsWith('--')),
    startFlags,
  );
  assert.ok(startFlags.includes('--expose-gc'));
  const settings = (command: string) => command.split(/\s+/).filter((word) => /^[A-Z_]+=/.test(word));
  assert.deepEqual(settings(shebang), settings(manifest.scripts.start), 'the same environment settings');
  assert.ok(settings(shebang).includes('MALLOC_ARENA_MAX=2'));
});
