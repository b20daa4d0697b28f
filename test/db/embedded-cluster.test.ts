// As root, PostgreSQL runs as the postgres user, which must reach the binaries. A checkout under a
// directory closed to it (/root is 0700, where CI or an operator may clone) once made initdb fail with
// EACCES; the binaries are now copied where that user can run them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { installedBinaries, reachableBinaries, serverAccount } from '../../src/db/embedded-cluster.ts';

const run = promisify(execFile);
const asRoot = process.getuid?.() === 0;

describe(
  'the embedded binaries as the postgres user',
  { skip: !asRoot && 'only root runs postgres as another user' },
  () => {
    const closed: string[] = [];
    after(() => Promise.all(closed.map((dir) => rm(dir, { recursive: true, force: true }))));

    it('are copied where that user can run them when the checkout is closed to it, and reused', async () => {
      const account = await serverAccount();
      assert.ok(account);
      const installed = await installedBinaries();
      const checkout = await mkdtemp(path.join(tmpdir(), 'lethe-closed-checkout-'));
      closed.push(checkout);
      await chmod(checkout, 0o700);
      const native = path.join(checkout, 'native');
      await cp(path.dirname(path.dirname(installed.postgres)), native, {
        recursive: true,
        verbatimSymlinks: true,
      });
      const unreachable = {
        initdb: path.join(native, 'bin', 'initdb'),
        pg_ctl: path.join(native, 'bin', 'pg_ctl'),
        postgres: path.join(native, 'bin', 'postgres'),
      };
      await assert.rejects(
        run(unreachable.initdb, ['--version'], account),
        /EACCES/,
        'the postgres user cannot run binaries inside the closed checkout',
      );

      const reachable = await reachableBinaries(unreachable, account);
      closed.push(path.dirname(path.dirname(reachable.postgres)));
      assert.ok(!reachable.postgres.startsWith(checkout), reachable.postgres);
      for (const binary of [reachable.initdb, reachable.postgres, reachable.pg_ctl]) {
        const { stdout } = await run(binary, ['--version'], account);
        assert.match(stdout, /PostgreSQL\) \d+/);
      }
      assert.deepEqual(await reachableBinaries(unreachable, account), reachable, 'the copy is made once');
      assert.deepEqual(
        await reachableBinaries(installed, account),
        installed,
        'a reachable install is used as is',
      );
    });
  },
);
