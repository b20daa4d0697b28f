// `GET|PUT /v1/datastore/{name}/identities`: the declaration of which attributes hold which identity
// kind. Validation names the bad entry and stores nothing; scopes, 404, the default, the audit entry.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseIdentityDeclaration } from '../../src/datastore/identity-attributes.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { createDatastore } from '../helpers/area-b.ts';

describe('identity attributes of a datastore', () => {
  let service: TestService;
  let root: string;
  before(async () => {
    service = await startTestService();
    root = await service.rootToken();
    await createDatastore(service, 'people');
  });
  after(() => service.stop());

  async function clientWithScopes(scopes: string[]) {
    const created = await service.call('POST', '/v1/oauth/client', { token: root, json: { scopes } });
    const issued = await service.call('POST', '/v1/oauth/token', {
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: created.body.client_id,
        client_secret: created.body.client_secret,
      }),
    });
    return issued.body.access_token as string;
  }

  const read = async (token = root) => service.call('GET', '/v1/datastore/people/identities', { token });

  it('answers the default while nothing is declared', async () => {
    const answer = await read();
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, {
      datastore: 'people',
      declared: false,
      identities: { email: ['*.email'], phone_number: ['*.phone_number', '*.phone'] },
      updated_at: null,
    });
  });

  it('stores a declaration, answers it under every prefix, audits it, and goes back to the default on {}', async () => {
    const declaration = {
      email: ['user.email', 'contact.work_email'],
      phone_number: ['user.phone'],
      loyalty: ['customer.loyalty_id'],
    };
    const put = await service.call('PUT', '/v1/datastore/people/identities', {
      token: root,
      json: declaration,
    });
    assert.equal(put.status, 200, put.text);
    const expected = {
      email: ['user.email', 'contact.work_email'],
      phone_number: ['user.phone'],
      loyalty: ['customer.loyalty_id'],
    };
    assert.deepEqual(put.body.identities, expected);
    assert.equal(put.body.declared, true);
    for (const prefix of ['/v1', '/api/v1', '']) {
      const got = await service.call('GET', `${prefix}/datastore/people/identities`, { token: root });
      assert.equal(got.status, 200, `${prefix}: ${got.text}`);
      assert.deepEqual(got.body.identities, expected);
      assert.equal(got.body.declared, true);
    }
    const audit = await service.call('GET', '/v1/audit-log?action=datastore.identities&datastore=people', {
      token: root,
    });
    assert.equal(audit.status, 200, audit.text);
    assert.match(audit.body.items[0].actor, /^client:/);
    assert.deepEqual(audit.body.items[0].details, { declared: true, identities: expected });

    const reset = await service.call('PUT', '/api/v1/datastore/people/identities', { token: root, json: {} });
    assert.equal(reset.status, 200, reset.text);
    assert.equal(reset.body.declared, false);
    assert.equal((await read()).body.declared, false);
  });

  it('refuses a bad declaration with 422 naming the entry, storing nothing', async () => {
    await service.call('PUT', '/v1/datastore/people/identities', {
      token: root,
      json: { email: ['user.email'] },
    });
    const stored = (await read()).body;
    const cases: [unknown, RegExp][] = [
      [{ email: ['user.email', 'no_dot'] }, /email\[1\]/],
      [{ email: ['user.email', 'a.b.c'] }, /email\[1\]/],
      [{ phone_number: ['user.phone', 'x'.repeat(129) + '.phone'] }, /phone_number\[1\]/],
      [{ email: [42] }, /body\.email\.0 must be string/],
      [{ email: ['user.email', 'user.email'] }, /email\[1\] repeats user\.email/],
      [{ email: ['user.email', 'user.email ', ''] }, /email\[1\]/],
      [{ email: 'user.email' }, /body\.email must be array/],
      [{ 'bad kind': ['user.x'] }, /"bad kind" is not an identity kind/],
      [{ '1st': ['user.x'] }, /"1st" is not an identity kind/],
      [
        { email: Array.from({ length: 51 }, (_, index) => `t.a${index}`) },
        /body\.email must have at most 50 items/,
      ],
      [
        Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, []])),
        /body must have at most 20 fields/,
      ],
      [['user.email'], /body must be object/],
    ];
    for (const [json, detail] of cases) {
      const answer = await service.call('PUT', '/v1/datastore/people/identities', { token: root, json });
      assert.equal(answer.status, 422, `${JSON.stringify(json).slice(0, 80)}: ${answer.text}`);
      assert.match(answer.body.detail, detail);
    }
    assert.deepEqual((await read()).body, stored, 'nothing changed');
  });

  it('refuses in the domain what the route schema refuses too (the CLI calls the service directly)', () => {
    const cases: [unknown, RegExp][] = [
      [{ email: [42] }, /email\[0\] must be a name/],
      [{ email: 'user.email' }, /email must be a list/],
      [{ email: Array.from({ length: 51 }, (_, index) => `t.a${index}`) }, /email names more than 50/],
      [Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, []])), /At most 20/],
      [['user.email'], /must be an object/],
      [null, /must be an object/],
    ];
    for (const [body, message] of cases) {
      assert.throws(
        () => parseIdentityDeclaration(body),
        (error: Error) => message.test(error.message),
      );
    }
    assert.deepEqual(parseIdentityDeclaration({ email: [], phone_number: ['a.b'] }), {
      email: [],
      phone_number: ['a.b'],
    });
  });

  it('answers 404 for an unknown datastore, and 401/403 without the scope', async () => {
    for (const method of ['GET', 'PUT']) {
      const missing = await service.call(method, '/v1/datastore/nowhere/identities', {
        token: root,
        json: method === 'PUT' ? { email: ['user.email'] } : undefined,
      });
      assert.equal(missing.status, 404, missing.text);
      assert.match(missing.body.detail, /nowhere/);
      const anonymous = await service.call(method, '/v1/datastore/people/identities', {
        json: method === 'PUT' ? {} : undefined,
      });
      assert.equal(anonymous.status, 401);
    }
    const reader = await clientWithScopes(['datastore:read']);
    assert.equal((await read(reader)).status, 200);
    const refused = await service.call('PUT', '/v1/datastore/people/identities', {
      token: reader,
      json: { email: ['user.email'] },
    });
    assert.equal(refused.status, 403, refused.text);
    assert.equal((await read()).body.identities.email[0], 'user.email', 'unchanged');
    const unrelated = await clientWithScopes(['policy:read']);
    assert.equal((await read(unrelated)).status, 403);

    for (const scopes of [['datastore:update'], ['datastore:*']]) {
      const writer = await clientWithScopes(scopes);
      const put = await service.call('PUT', '/v1/datastore/people/identities', {
        token: writer,
        json: { email: ['member.email'] },
      });
      assert.equal(put.status, 200, `${scopes[0]}: ${put.text}`);
    }
  });

  it('is deleted with its datastore', async () => {
    await createDatastore(service, 'shortlived');
    const put = await service.call('PUT', '/v1/datastore/shortlived/identities', {
      token: root,
      json: { email: ['user.mail'] },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal((await service.call('DELETE', '/v1/datastore/shortlived', { token: root })).status, 204);
    await createDatastore(service, 'shortlived');
    const fresh = await service.call('GET', '/v1/datastore/shortlived/identities', { token: root });
    assert.equal(fresh.body.declared, false);
  });
});
