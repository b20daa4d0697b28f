// The test global setup's Chromium step (test/helpers/chromium.ts), pointed at a path that does not exist
// so that the machine's own Chromium stays installed: as root it runs the apt-get install, otherwise it
// stops at once naming the one command to run.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CHROMIUM, ensureChromium, INSTALL_COMMAND } from '../helpers/chromium.ts';

describe('ensureChromium', () => {
  let dir: string;
  let missing: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'lethe-chromium-'));
    missing = path.join(dir, 'chromium');
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('finds the Chromium the browser tests use (the global setup installed it if it was missing)', () => {
    assert.equal(ensureChromium(), 'present');
    assert.equal(ensureChromium({ path: CHROMIUM }), 'present');
  });

  it('stops at once with the command to run when the user is not root', () => {
    const commands: string[] = [];
    assert.throws(
      () => ensureChromium({ path: missing, isRoot: false, run: (command) => (commands.push(command), 0) }),
      (error: Error) =>
        error.message.includes(`run \`${INSTALL_COMMAND}\` as root`) && error.message.includes(missing),
    );
    assert.deepEqual(commands, []);
  });

  it('as root, installs it with apt-get and goes on once the binary is there', () => {
    const commands: string[] = [];
    const outcome = ensureChromium({
      path: missing,
      isRoot: true,
      run: (command) => {
        commands.push(command);
        writeFileSync(missing, '');
        return 0;
      },
    });
    assert.deepEqual(commands, ['apt-get update && apt-get install -y chromium']);
    assert.equal(outcome, 'installed');
  });

  it('as root, fails naming the command when the install fails', async () => {
    await rm(missing, { force: true });
    assert.throws(() => ensureChromium({ path: missing, isRoot: true, run: () => 100 }), /exit 100/);
  });
});
