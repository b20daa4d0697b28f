// The `lethe` bin runs the JavaScript built into dist/ (scripts/build.mjs): from an installed package, where
// Node refuses to strip the types of a .ts file under node_modules, and from a checkout whose src/ changed
// after the build, which it compiles again before running rather than start the older code.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** The package's files a user's install holds, with their times (an install keeps the tarball's). */
async function copyPackage(into: string): Promise<void> {
  await mkdir(into, { recursive: true });
  for (const entry of ['package.json', 'bin', 'scripts', 'src', 'dist'])
    await cp(path.join(ROOT, entry), path.join(into, entry), { recursive: true, preserveTimestamps: true });
}

describe('the lethe bin', () => {
  let scratch: string;

  before(async () => {
    await run(process.execPath, [path.join(ROOT, 'scripts/build.mjs')]);
    scratch = await mkdtemp(path.join(tmpdir(), 'lethe-bin-'));
  });

  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('runs from an installed node_modules', async () => {
    const installed = path.join(scratch, 'app/node_modules/lethe');
    await copyPackage(installed);
    // An install puts Lethe's dependencies beside it in the same node_modules.
    for (const dependency of await readdir(path.join(ROOT, 'node_modules')))
      if (!dependency.startsWith('.'))
        await symlink(
          path.join(ROOT, 'node_modules', dependency),
          path.join(scratch, 'app/node_modules', dependency),
        );
    const { stdout, stderr } = await run(process.execPath, [path.join(installed, 'bin/lethe.mjs'), '--help']);
    assert.match(stdout, /^Usage: lethe <command>/);
    assert.equal(stderr, '');
  });

  it('compiles a source edited after the build before running it', async () => {
    const checkout = path.join(scratch, 'checkout');
    await copyPackage(checkout);
    await symlink(path.join(ROOT, 'node_modules'), path.join(checkout, 'node_modules'));
    const main = path.join(checkout, 'src/cli/main.ts');
    const source = await readFile(main, 'utf8');
    await writeFile(main, source.replace('Usage: lethe <command>', 'Usage (edited): lethe <command>'));

    const { stdout } = await run(process.execPath, [path.join(checkout, 'bin/lethe.mjs'), '--help']);

    assert.match(stdout, /^Usage \(edited\): lethe <command>/);
    assert.match(await readFile(path.join(checkout, 'dist/cli/main.js'), 'utf8'), /Usage \(edited\)/);
  });
});
