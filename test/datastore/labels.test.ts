// PUT /v1/datastore/{name}/labels: the human labels of a datastore's entity names that the access report
// shows. It replaces the labels and is audited (the count, never the labels); bad input is a 4xx with a
// detail naming what is wrong, and changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('datastore labels', () => {
  let service: TestService;
  let root: string;
  const labelsOf = async (name: string) =>
    (
      await service.services.db.query<{ labels: Record<string, string> }>(
        'SELECT labels FROM datastores WHERE name = $1',
        [name],
      )
    ).rows[0]?.labels;

  before(async () => {
    service = await startTestService();
    root = await service.rootToken();
    const created = await service.call('POST', '/v1/datastore', { token: root, json: { name: 'crm' } });
    assert.equal(created.status, 201, created.text);
  });
  after(() => service.stop());

  it('sets and replaces the labels, and audits the change', async () => {
    assert.deepEqual(await labelsOf('crm'), {});
    const first = await service.call('PUT', '/v1/datastore/crm/labels', {
      token: root,
      json: { users: 'Your account', orders: 'Your orders' },
    });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body, { name: 'crm', labels: { users: 'Your account', orders: 'Your orders' } });
    const second = await service.call('PUT', '/v1/datastore/crm/labels', {
      token: root,
      json: { users: 'Account' },
    });
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(await labelsOf('crm'), { users: 'Account' });
    const audit = await service.services.db.query<{ details: unknown }>(
      `SELECT details FROM audit_log WHERE action = 'datastore.labels' ORDER BY seq`,
    );
    assert.deepEqual(
      audit.rows.map((row) => row.details),
      [{ labels: 2 }, { labels: 1 }],
    );
  });

  it('refuses bad input with a 4xx and a detail, changing nothing', async () => {
    const before = await labelsOf('crm');
    const cases: [string, unknown, number, RegExp][] = [
      ['/v1/datastore/nope/labels', { users: 'x' }, 404, /No datastore named nope/],
      ['/v1/datastore/crm/labels', { users: 5 }, 422, /users/],
      ['/v1/datastore/crm/labels', { users: '' }, 422, /users/],
      ['/v1/datastore/crm/labels', { users: 'x'.repeat(201) }, 422, /users/],
      ['/v1/datastore/crm/labels', { users: '   ' }, 422, /labels\.users/],
      ['/v1/datastore/crm/labels', ['users'], 422, /body|must be object/i],
      ['/v1/datastore/crm/labels', { ['k'.repeat(201)]: 'x' }, 422, /./],
    ];
    for (const [url, json, status, detail] of cases) {
      const answer = await service.call('PUT', url, { token: root, json });
      assert.equal(answer.status, status, `${JSON.stringify(json).slice(0, 60)}: ${answer.text}`);
      assert.match(answer.body.detail, detail);
    }
    assert.equal((await service.call('PUT', '/v1/datastore/crm/labels', { json: { a: 'b' } })).status, 401);
    assert.deepEqual(await labelsOf('crm'), before);
  });
});
