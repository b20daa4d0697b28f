// `lethe --help` and usage errors answer without loading the service: the command line imports each
// command's modules when that command runs (src/cli/main.ts), since loading the whole service (Fastify,
// pg, pg-boss, every domain) took seconds on a loaded machine before any command did anything. A module
// hook records what a real `lethe` process loads.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

const CLI = path.resolve(import.meta.dirname, '../../src/cli/main.ts');
const HEAVY = [
  /\/src\/runtime\/start\.ts$/,
  /\/src\/http\//,
  /\/src\/db\/(open|embedded)/,
  /\/node_modules\/(fastify|pg|pg-boss)\//,
];

describe('lethe start-up', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'lethe-startup-'));
    await writeFile(
      path.join(dir, 'record.mjs'),
      `import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({ resolve(specifier, context, next) {
  const resolved = next(specifier, context);
  appendFileSync(process.env.LETHE_LOADED_FILE, resolved.url + '\\n');
  return resolved;
} });
`,
    );
  });
  after(() => rm(dir, { recursive: true, force: true }));

  async function loaded(args: string[]) {
    const file = path.join(dir, `${args.join('_')}.txt`);
    const run = spawnSync(process.execPath, ['--import', path.join(dir, 'record.mjs'), CLI, ...args], {
      encoding: 'utf8',
      env: { ...process.env, LETHE_LOADED_FILE: file },
      timeout: 60_000,
    });
    return { run, urls: (await readFile(file, 'utf8')).trim().split('\n') };
  }

  for (const args of [['--help'], ['client', '--help'], ['no-such-command'], ['policy', 'list', '--bogus']])
    it(`lethe ${args.join(' ')} loads no part of the service`, async () => {
      const { run, urls } = await loaded(args);
      assert.ok(run.status === 0 || run.status === 2, run.stderr);
      assert.match(`${run.stdout}${run.stderr}`, /Usage:/);
      assert.ok(
        urls.some((url) => url.endsWith('/src/cli/main.ts')),
        'the hook saw the command',
      );
      assert.deepEqual(
        urls.filter((url) => HEAVY.some((pattern) => pattern.test(url))),
        [],
      );
    });
});
