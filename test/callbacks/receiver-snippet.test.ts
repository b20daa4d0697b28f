// The verification snippet receivers copy from docs/callbacks.md is run here, as written, against
// signatures made by Lethe, so the documentation cannot drift from what Lethe sends.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { signatureHeader, signatureHeaderForAll } from '../../src/callbacks/signing.ts';

type Verify = (
  header: unknown,
  rawBody: string | Buffer,
  secret: string,
  toleranceSeconds?: number,
) => boolean;

describe('the receiver snippet in docs/callbacks.md', () => {
  let folder: string;
  let verifyLetheSignature: Verify;
  const secret = 'whsec_receiver-snippet-secret';
  const body = '{"privacy_request":{"id":"pri_1"},"timestamp":"2026-11-23T10:00:00Z"}';
  const now = () => Math.floor(Date.now() / 1000);

  before(async () => {
    const document = await readFile(path.resolve(import.meta.dirname, '../../docs/callbacks.md'), 'utf8');
    const block =
      /<!-- receiver-snippet:start -->\s*```js\n([\s\S]*?)```\s*<!-- receiver-snippet:end -->/.exec(document);
    assert.ok(block?.[1], 'docs/callbacks.md holds the marked snippet');
    folder = await mkdtemp(path.join(tmpdir(), 'lethe-snippet-'));
    const file = path.join(folder, 'verify-lethe-signature.mjs');
    await writeFile(file, block[1]);
    ({ verifyLetheSignature } = (await import(file)) as { verifyLetheSignature: Verify });
  });
  after(() => rm(folder, { recursive: true, force: true }));

  it('accepts what Lethe signs, as a string or as the received bytes', () => {
    const header = signatureHeader(secret, body, now());
    assert.ok(verifyLetheSignature(header, body, secret));
    assert.ok(verifyLetheSignature(header, Buffer.from(body), secret));
  });

  it('accepts either signature during a rotation grace period', () => {
    const header = signatureHeaderForAll(['whsec_new-one', secret], body, now());
    assert.ok(verifyLetheSignature(header, body, secret));
    assert.ok(verifyLetheSignature(header, body, 'whsec_new-one'));
  });

  it('refuses a tampered body, another secret, an old timestamp and a missing header', () => {
    const header = signatureHeader(secret, body, now());
    assert.ok(!verifyLetheSignature(header, body.replace('pri_1', 'pri_2'), secret));
    assert.ok(!verifyLetheSignature(header, body, 'whsec_someone-else'));
    assert.ok(!verifyLetheSignature(signatureHeader(secret, body, now() - 301), body, secret));
    assert.ok(verifyLetheSignature(signatureHeader(secret, body, now() - 301), body, secret, 600));
    assert.ok(!verifyLetheSignature(undefined, body, secret));
    assert.ok(!verifyLetheSignature('t=1,v1=zz', body, secret));
  });
});
