// Reply-to-tokens are compact JWEs (dir, A256GCM) sealed with node:crypto directly (issue 29: jose's async
// WebCrypto path cost more CPU than the token's own AES-GCM) and opened with jose: a token issued here must
// be one any JWE library opens with the resume-token key, and jose's own tokens of earlier versions must
// still open. No store needed.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { CompactEncrypt, compactDecrypt, decodeProtectedHeader } from 'jose';
import { Keyring } from '../../src/crypto/keyring.ts';
import { issueReplyToken, openReplyToken } from '../../src/privacy-requests/reply-token.ts';

describe('reply-to-tokens', () => {
  const keyring = new Keyring(randomBytes(32));
  const claims = { webhook_id: 'wh_1', privacy_request_id: 'pri_1' };

  it('issues a compact JWE that jose opens with the resume-token key, carrying the claims', async () => {
    const issued = await issueReplyToken(
      keyring,
      { ...claims, jti: 'the-recorded-jti' },
      new Date(1_700_000_000_000),
    );
    assert.deepEqual(decodeProtectedHeader(issued.token), {
      alg: 'dir',
      enc: 'A256GCM',
      typ: 'lethe-reply+jwe',
    });
    const { plaintext } = await compactDecrypt(issued.token, keyring.key('resume-token'));
    assert.deepEqual(JSON.parse(new TextDecoder().decode(plaintext)), {
      ...claims,
      scopes: ['privacy-request:resume'],
      iat: 1_700_000_000,
      jti: 'the-recorded-jti',
    });
    assert.deepEqual(await openReplyToken(keyring, issued.token), issued.claims);
  });

  it('gives every token its own IV and jti, and refuses one tampered with or sealed under another key', async () => {
    const first = await issueReplyToken(keyring, claims);
    const second = await issueReplyToken(keyring, claims);
    assert.notEqual(first.claims.jti, second.claims.jti);
    assert.notEqual(first.token.split('.')[2], second.token.split('.')[2]);
    const parts = first.token.split('.');
    const flipped = Buffer.from(parts[3] as string, 'base64url');
    flipped[0] = (flipped[0] as number) ^ 1;
    parts[3] = flipped.toString('base64url');
    assert.equal(await openReplyToken(keyring, parts.join('.')), undefined);
    assert.equal(await openReplyToken(new Keyring(randomBytes(32)), first.token), undefined);
  });

  it('opens a token jose sealed (the earlier versions issued those)', async () => {
    const earlier = { ...claims, scopes: ['privacy-request:resume'], iat: 1_700_000_000, jti: 'earlier' };
    const token = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(earlier)))
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', typ: 'lethe-reply+jwe' })
      .encrypt(keyring.key('resume-token'));
    assert.deepEqual(await openReplyToken(keyring, token), earlier);
  });
});
