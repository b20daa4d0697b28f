// A stack trace of `npm start` names the lines of src/: the `lethe` bin runs the JavaScript built into dist/
// (scripts/build.mjs), whose files keep every line and column of their sources (types become blanks), so
// no source map is needed. A function planted in a checkout's src/cli/main.ts throws at start; the bin
// builds and runs dist/, and the trace it prints names the planted line and column of the TypeScript source.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

describe('the lines of dist/', () => {
  let scratch: string;

  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'lethe-lines-'));
  });

  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('let a stack trace of the built bin name the line and column of src/ that threw', async () => {
    const checkout = path.join(scratch, 'checkout');
    await mkdir(checkout, { recursive: true });
    for (const entry of ['package.json', 'bin', 'scripts', 'src'])
      await cp(path.join(ROOT, entry), path.join(checkout, entry), { recursive: true });
    await symlink(path.join(ROOT, 'node_modules'), path.join(checkout, 'node_modules'));

    // Planted after the imports (type-only ones among them vanish from the built file, so its lines differ).
    const main = path.join(checkout, 'src/cli/main.ts');
    const lines = (await readFile(main, 'utf8')).split('\n');
    const afterImports = lines.findLastIndex((line) => /^import |^} from /.test(line)) + 1;
    const planted = [
      '',
      'export function failOnPurpose(reason: string = "planted"): never {',
      '  const typed: { reason: string } = { reason }; throw new Error(`${typed.reason} failure`);',
      '}',
      'failOnPurpose();',
    ];
    // V8 places the frame at the Error's construction.
    const throwColumn = (planted[2] as string).indexOf('new Error') + 1;
    lines.splice(afterImports, 0, ...planted);
    await writeFile(main, lines.join('\n'));
    const throwLine = afterImports + 3;

    const failed = await run(process.execPath, [path.join(checkout, 'bin/lethe.mjs'), '--help']).then(
      () => assert.fail('the planted failure did not throw'),
      (error: { stderr: string }) => error,
    );
    assert.match(
      await readFile(path.join(checkout, 'dist/cli/main.js'), 'utf8'),
      /failOnPurpose/,
      'the bin ran the built dist/',
    );
    const frame = failed.stderr.split('\n').find((line) => line.includes('at failOnPurpose'));
    assert.ok(frame, `no frame of the planted function in:\n${failed.stderr}`);
    assert.match(frame, new RegExp(`dist/cli/main\\.js:${throwLine}:${throwColumn}\\)?$`));
  });
});
