// Targets and masking strategies as pure functions: what each selects and what each turns a value into.
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Keyring } from '../../src/crypto/keyring.ts';
import { valueMasker } from '../../src/masking/strategies.ts';
import { parseTargets, unionOfTargets } from '../../src/privacy-requests/rules/targets.ts';

describe('targets', () => {
  it('selects everything, whole tables or single attributes', () => {
    const everything = parseTargets(['*']);
    assert.ok(everything.selectsTable('users') && everything.selectsAttribute('orders', 'total'));

    const some = parseTargets(['users.email', 'orders.*']);
    assert.equal(some.selectsTable('users'), false);
    assert.equal(some.concernsTable('users'), true);
    assert.equal(some.selectsAttribute('users', 'email'), true);
    assert.equal(some.selectsAttribute('users', 'name'), false);
    assert.equal(some.selectsTable('orders'), true);
    assert.equal(some.selectsAttribute('orders', 'anything'), true);
    assert.equal(some.concernsTable('notes'), false);
    assert.equal(some.selectsAttribute('notes', 'email'), false, 'an attribute name is bound to its table');

    const union = unionOfTargets([parseTargets(['users.email']), parseTargets(['users.phone'])]);
    assert.equal(union.selectsAttribute('users', 'phone'), true);
    assert.equal(union.selectsAttribute('users', 'name'), false);
  });
});

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
