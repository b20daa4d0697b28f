import assert from 'node:assert/strict';
import { createSecretKey, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { open, openPieces, seal } from '../../src/crypto/secret-box.ts';

const key = createSecretKey(randomBytes(32));

/** `box` cut into consecutive pieces of `size` bytes, the way a file chunk is read in slices. */
const slices = (box: Buffer, size: number) =>
  Array.from({ length: Math.ceil(box.length / size) }, (_, index) =>
    box.subarray(index * size, (index + 1) * size),
  );

describe('secret box', () => {
  it('opens a box read in slices into the same bytes, in as many pieces', () => {
    const plaintext = randomBytes(100_000);
    const box = seal(key, plaintext, 'file:0');
    assert.deepEqual(open(key, box, 'file:0'), plaintext);
    for (const size of [29, 1000, 16_384, box.length]) {
      const pieces = openPieces(key, slices(box, size), 'file:0');
      assert.equal(pieces.length, Math.ceil(box.length / size), `slices of ${size}`);
      assert.deepEqual(Buffer.concat(pieces), plaintext, `slices of ${size}`);
    }
  });

  it('refuses a box with any slice altered, or read back for another place', () => {
    const box = seal(key, randomBytes(50_000), 'file:3');
    for (const at of [0, 5, 20, 40, 20_000, box.length - 1]) {
      const altered = Buffer.from(box);
      altered[at] = (altered[at] as number) ^ 1;
      assert.throws(() => openPieces(key, slices(altered, 16_384), 'file:3'), Error, `byte ${at}`);
    }
    assert.throws(() => openPieces(key, slices(box, 16_384), 'file:4'));
    assert.throws(() => openPieces(key, slices(box, 16_384).slice(0, 2), 'file:3'), 'a slice missing');
  });

  it('refuses a first slice shorter than the header', () => {
    const box = seal(key, randomBytes(100), 'file:0');
    assert.throws(() => openPieces(key, slices(box, 10), 'file:0'), /unknown format/);
  });
});
