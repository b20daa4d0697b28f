// As root, PostgreSQL runs as lethe-postgres, which must reach the binaries. A checkout under a
// directory closed to it (/root is 0700, where CI or an operator may clone) once made initdb fail with
// EACCES; the binaries are now copied where that user can run them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import {
  type Binaries,
  installedBinaries,
  reachableBinaries,
  serverAccount,
} from '../../src/db/embedded-cluster.ts';

const run = promisify(execFile);

describe('the embedded binaries as lethe-postgres', () => {
  const cleanup: string[] = [];
  after(() => Promise.all(cleanup.map((dir) => rm(dir, { recursive: true, force: true }))));

  /** A copy of the installed native tree (bin, lib, share) in a new directory of the given mode. */
  async function nativeIn(installed: Binaries, mode: number) {
    const checkout = await mkdtemp(path.join(tmpdir(), 'lethe-checkout-'));
    cleanup.push(checkout);
    await chmod(checkout, mode);
    const native = path.join(checkout, 'native');
    await cp(path.dirname(path.dirname(installed.postgres)), native, {
      recursive: true,
      verbatimSymlinks: true,
    });
    const bin = path.join(native, 'bin');
    const binaries: Binaries = {
      initdb: path.join(bin, 'initdb'),
      pg_ctl: path.join(bin, 'pg_ctl'),
      postgres: path.join(bin, 'postgres'),
    };
    return { checkout, binaries };
  }

  it('are copied where that user can run them when the checkout is closed to it, and reused', async () => {
    const installed = await installedBinaries();
    const account = await serverAccount();
    if (process.getuid?.() !== 0) {
      assert.equal(account, undefined, 'an ordinary user runs postgres itself');
      assert.deepEqual(await reachableBinaries(installed, account), installed);
      return;
    }
    assert.ok(account);

    const closed = await nativeIn(installed, 0o700);
    await assert.rejects(
      run(closed.binaries.initdb, ['--version'], account),
      /EACCES/,
      'lethe-postgres cannot run binaries inside the closed checkout',
    );
    const reachable = await reachableBinaries(closed.binaries, account);
    cleanup.push(path.dirname(path.dirname(reachable.postgres)));
    assert.ok(!reachable.postgres.startsWith(closed.checkout), reachable.postgres);
    for (const binary of [reachable.initdb, reachable.postgres, reachable.pg_ctl]) {
      const { stdout } = await run(binary, ['--version'], account);
      assert.match(stdout, /PostgreSQL\) \d+/);
    }
    assert.deepEqual(await reachableBinaries(closed.binaries, account), reachable, 'the copy is made once');

    const open = await nativeIn(installed, 0o755);
    assert.deepEqual(
      await reachableBinaries(open.binaries, account),
      open.binaries,
      'a reachable install is used as is',
    );
  });
});
