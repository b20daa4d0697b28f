// A rule's targets as pure functions: what each selects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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
