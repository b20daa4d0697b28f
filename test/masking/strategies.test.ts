// The masking strategies' registry (src/masking/strategies.ts): what each rewrite strategy turns a value
// into, and that the strategies which remove data have no value masker.
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Keyring } from '../../src/crypto/keyring.ts';
import { MASKING_STRATEGY_NAMES, strategyEffect, valueMasker } from '../../src/masking/strategies.ts';

describe('value masking', () => {
  const keyring = new Keyring(randomBytes(32));

  it('nullify gives null; every strategy keeps a null value null', () => {
    assert.equal(valueMasker(keyring, 'nullify', {})('ada@example.com'), null);
    for (const strategy of ['hash', 'random_string', 'string_rewrite'] as const) {
      assert.equal(valueMasker(keyring, strategy, { rewrite_value: 'x' })(null), null, strategy);
    }
  });

  it('hash is HMAC-SHA-256 hex under the masking key, deterministic, and salted apart', () => {
    const hash = valueMasker(keyring, 'hash', {});
    const expected = createHmac('sha256', keyring.key('masking-hash')).update('Ada').digest('hex');
    assert.equal(hash('Ada'), expected);
    assert.equal(hash('Ada'), hash('Ada'));
    assert.notEqual(hash('Ada'), hash('ada'));
    const salted = valueMasker(keyring, 'hash', { salt: 'one' });
    assert.notEqual(salted('Ada'), expected);
    assert.notEqual(salted('Ada'), valueMasker(keyring, 'hash', { salt: 'two' })('Ada'));
  });

  it('random_string draws letters and digits of the configured length', () => {
    const short = valueMasker(keyring, 'random_string', { length: 5 });
    const drawn = new Set(Array.from({ length: 50 }, () => short('secret')));
    for (const value of drawn) assert.match(value as string, /^[A-Za-z0-9]{5}$/);
    assert.ok(drawn.size > 45, 'draws differ');
    assert.match(valueMasker(keyring, 'random_string', {})('secret') as string, /^[A-Za-z0-9]{30}$/);
  });

  it('string_rewrite gives the configured text, even an empty one', () => {
    assert.equal(valueMasker(keyring, 'string_rewrite', { rewrite_value: 'REDACTED' })('Ada'), 'REDACTED');
    assert.equal(valueMasker(keyring, 'string_rewrite', { rewrite_value: '' })('Ada'), '');
  });
});

describe('the registry', () => {
  const keyring = new Keyring(randomBytes(32));

  it('gives a value masker to the rewrite strategies only', () => {
    for (const name of MASKING_STRATEGY_NAMES) {
      if (strategyEffect(name) === 'rewrite') {
        assert.equal(typeof valueMasker(keyring, name, { rewrite_value: 'x' }), 'function', name);
      } else {
        assert.throws(() => valueMasker(keyring, name, {}), /does not rewrite values/, name);
      }
    }
    assert.deepEqual(
      MASKING_STRATEGY_NAMES.filter((name) => strategyEffect(name) !== 'rewrite'),
      ['delete', 'forget'],
    );
  });
});
