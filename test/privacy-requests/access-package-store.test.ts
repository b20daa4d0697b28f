// Storing an access package: the destination folder is made (owner-only) by the first package stored in
// it, when the file cannot be created for want of it; later packages go into it without a mkdir of their
// own (issue 29), and a package stored again for the same request replaces the first. No store needed.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Keyring } from '../../src/crypto/keyring.ts';
import {
  type AccessPackage,
  loadAccessPackage,
  storeAccessPackage,
} from '../../src/privacy-requests/rules/access-package.ts';

describe('storing an access package', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'lethe-package-'));
  after(() => rm(dataDir, { recursive: true, force: true }));
  const keyring = new Keyring(randomBytes(32));
  const config = { dataDir };
  const location = 'not/yet/there';
  const packageOf = (id: string, policyKey: string): AccessPackage => ({
    privacy_request_id: id,
    policy_key: policyKey,
    generated_at: new Date(0).toISOString(),
    rules: [],
    datastores: [],
  });

  it('makes the missing folder owner-only with the first package, and stores later ones beside it', async () => {
    await storeAccessPackage(config, keyring, location, packageOf('pri_first', 'one'));
    const folder = path.join(dataDir, location);
    assert.equal((await stat(folder)).mode & 0o777, 0o700);
    assert.equal((await stat(path.join(folder, 'pri_first.json'))).mode & 0o777, 0o600);

    await storeAccessPackage(config, keyring, location, packageOf('pri_second', 'one'));
    await storeAccessPackage(config, keyring, location, packageOf('pri_first', 'two'));
    assert.deepEqual((await readdir(folder)).sort(), ['pri_first.json', 'pri_second.json']);
    const first = await loadAccessPackage(config, keyring, location, 'pri_first');
    assert.equal(first?.accessPackage.policy_key, 'two', 'stored again: replaced');
    const second = await loadAccessPackage(config, keyring, location, 'pri_second');
    assert.equal(second?.accessPackage.policy_key, 'one');
  });
});
