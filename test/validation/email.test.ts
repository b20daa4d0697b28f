// The email check reads its input linearly. The shape `a@.a.a.a…@` made the former pattern
// (`^[^\s@]+@[^\s@]+\.[^\s@]+$`) backtrack quadratically: 4.5 s of blocked event loop at 64 KiB.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isEmailAddress, MAX_EMAIL_LENGTH } from '../../src/validation/email.ts';

// eslint-disable-next-line regexp/no-super-linear-backtracking -- the former pattern itself, the oracle on strings of at most 24 characters
const FORMER_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

describe('isEmailAddress', () => {
  it('accepts plain addresses and refuses the malformed ones', () => {
    for (const good of ['a@b.co', 'first.last+tag@sub.example.org', 'x@y.z', 'ü@bücher.de'])
      assert.equal(isEmailAddress(good), true, good);
    for (const bad of [
      '',
      'plain',
      '@b.co',
      'a@',
      'a@b',
      'a@.b',
      'a@b.',
      'a@@b.co',
      'a@b@c.co',
      'a b@c.co',
      'a@b.c\n',
    ])
      assert.equal(isEmailAddress(bad), false, JSON.stringify(bad));
  });

  it('refuses an address longer than the bound', () => {
    const local = 'a'.repeat(MAX_EMAIL_LENGTH);
    assert.equal(isEmailAddress(`${local}@example.com`), false);
    assert.equal(isEmailAddress(`${'a'.repeat(MAX_EMAIL_LENGTH - 12)}@example.com`), true);
  });

  it('agrees with the former pattern on every short input within the bound', () => {
    const alphabet = fc.constantFrom('a', 'b', '@', '.', ' ', '\t', '-', 'é');
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 24 }), (value) => {
        assert.equal(isEmailAddress(value), FORMER_PATTERN.test(value), JSON.stringify(value));
      }),
      { numRuns: 5000 },
    );
  });
});
