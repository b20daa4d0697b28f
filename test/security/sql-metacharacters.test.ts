// SQL metacharacters in every free-text field of Area A and Area B are data: stored and read back
// verbatim, never an error; lookups stay exact (`%` and `_` are not wildcards); fields whose syntax is
// restricted (keys, datastore, table and attribute names) refuse them with a 4xx, never a 5xx.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiClient, apiClient } from '../helpers/area-b.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const HOSTILE = [
  "'; DROP TABLE entities; --",
  '%',
  '_',
  '\\',
  "\\'; SELECT pg_sleep(5); --",
  "' OR '1'='1' --",
  '$1 $$ $tag$ ::text',
  '"quoted" `tick` /* comment */',
  '%_\\%\\_',
];

describe('SQL metacharacters are data', () => {
  let service: TestService;
  let token: string;
  const call = (method: string, path: string, json?: unknown) => service.call(method, path, { token, json });

  before(async () => {
    service = await startTestService();
    token = await service.rootToken();
  });
  after(() => service.stop());

  it('Area A: connection, OAuth, policy, rule, webhook and pre-approval texts round-trip verbatim', async () => {
    for (const text of HOSTILE) {
      const connection = await call('PATCH', '/v1/connection', [
        { key: 'meta_conn', name: text, description: text, connection_type: 'https', access: 'read' },
      ]);
      assert.equal(connection.status, 200, connection.text);
      assert.deepEqual(connection.body.failed, [], connection.text);
      const readConnection = await call('GET', '/v1/connection/meta_conn');
      assert.equal(readConnection.body.name, text);
      assert.equal(readConnection.body.description, text);

      const oauth = await call('PUT', '/v1/connection/meta_conn/oauth', {
        grant_type: 'client_credentials',
        token_url: 'https://93.184.216.34/token',
        scope: text,
        client_id: text,
        client_secret: text,
      });
      assert.equal(oauth.status, 200, oauth.text);
      const withOauth = await call('GET', '/v1/connection/meta_conn');
      assert.equal(withOauth.body.oauth.scope, text);
      assert.equal(withOauth.body.oauth.client_id, text);

      const policy = await call('PATCH', '/v1/dsr/policy', [{ key: 'meta_policy', name: text }]);
      assert.equal(policy.status, 200, policy.text);
      assert.deepEqual(policy.body.failed, [], policy.text);
      const rule = await call('PATCH', '/v1/dsr/policy/meta_policy/rule', [
        {
          key: 'meta_rule',
          name: text,
          action_type: 'erasure',
          masking_strategy: { strategy: 'string_rewrite', configuration: { rewrite_value: text } },
          targets: ['users.email'],
        },
      ]);
      assert.equal(rule.status, 200, rule.text);
      assert.deepEqual(rule.body.failed, [], rule.text);
      const readPolicy = await call('GET', '/v1/dsr/policy/meta_policy');
      assert.equal(readPolicy.body.name, text);
      const readRule = readPolicy.body.rules.find(
        (candidate: { key: string }) => candidate.key === 'meta_rule',
      );
      assert.equal(readRule.name, text);
      assert.equal(readRule.masking_strategy.configuration.rewrite_value, text);

      const webhooks = await call('PUT', '/v1/policy/meta_policy/webhook/pre_execution', [
        { connection_config_key: 'meta_conn', direction: 'one_way', key: 'meta_hook', name: text },
      ]);
      assert.equal(webhooks.status, 200, webhooks.text);
      const readHook = await call('GET', '/v1/policy/meta_policy/webhook/pre_execution/meta_hook');
      assert.equal(readHook.body.name, text);
      const approval = await call('PUT', '/v1/pre_approval_webhook', [
        { connection_config_key: 'meta_conn', key: 'meta_gate', name: text },
      ]);
      assert.equal(approval.status, 200, approval.text);
      const readApproval = await call('GET', '/v1/pre_approval_webhook');
      assert.equal(readApproval.body[0].name, text);
    }
  });

  it('Area A: keys with metacharacters are refused or not found (4xx), never run', async () => {
    for (const text of HOSTILE) {
      const encoded = encodeURIComponent(text);
      for (const path of [
        `/v1/connection/${encoded}`,
        `/v1/dsr/policy/${encoded}`,
        `/v1/policy/${encoded}/webhook/pre_execution`,
      ]) {
        const answer = await call('GET', path);
        assert.ok([404, 422].includes(answer.status), `${path}: ${answer.status} ${answer.text}`);
      }
      const created = await call('PATCH', '/v1/connection', [
        { key: text, name: 'n', connection_type: 'https', access: 'read' },
      ]);
      if (created.status === 200 && created.body.succeeded.length === 1) {
        // `_` is a valid key: then it is an exact key like any other.
        const read = await call('GET', `/v1/connection/${encoded}`);
        assert.equal(read.body.key, text);
      } else {
        assert.ok(created.status === 422 || created.body.failed?.length === 1, created.text);
      }
    }
    for (const lookalike of ['meta%', 'meta_con_', 'meta%25conn', '%']) {
      const answer = await call('GET', `/v1/connection/${encodeURIComponent(lookalike)}`);
      assert.ok([404, 422].includes(answer.status), `${lookalike}: ${answer.status}`);
    }
    const connections = await call('GET', '/v1/connection');
    assert.equal(connections.status, 200);
    assert.deepEqual(connections.body.items.map((item: { key: string }) => item.key).sort(), [
      '_',
      'meta_conn',
    ]);
  });

  it('refuses a NUL character (which PostgreSQL text cannot hold) in a text field (422, or a failed bulk item), storing nothing', async () => {
    const before = [
      (await call('GET', '/v1/connection/meta_conn')).text,
      (await call('GET', '/v1/datastore')).text,
    ];
    const refused: [string, string, unknown][] = [
      [
        'PATCH',
        '/v1/connection',
        [{ key: 'meta_conn', name: 'a\u0000b', connection_type: 'https', access: 'read' }],
      ],
      ['POST', '/v1/datastore', { name: 'nul-store', description: 'a\u0000b' }],
      ['POST', '/v1/api-key', { name: 'a\u0000b', datastores: ['nul-store'] }],
      ['PATCH', '/v1/dsr/policy', [{ key: 'meta_policy', name: 'a\u0000b' }]],
    ];
    for (const [method, path, json] of refused) {
      const answer = await call(method, path, json);
      if (Array.isArray(json)) {
        // Bulk upserts judge each item on its own: the item fails, the call answers 200.
        assert.equal(answer.status, 200, `${method} ${path}: ${answer.text}`);
        assert.deepEqual(answer.body.succeeded, []);
        assert.match(answer.body.failed[0].message, /NUL character/);
      } else {
        assert.equal(answer.status, 422, `${method} ${path}: ${answer.text}`);
        assert.match(answer.body.detail, /NUL character/);
      }
    }
    const after = [
      (await call('GET', '/v1/connection/meta_conn')).text,
      (await call('GET', '/v1/datastore')).text,
    ];
    assert.deepEqual(after, before);
    assert.ok(!(await call('GET', '/v1/api-key')).text.includes('\\u0000'));
  });

  it('Area B: datastore descriptions and API key names round-trip verbatim', async () => {
    for (const [index, text] of HOSTILE.entries()) {
      const created = await call('POST', '/v1/datastore', { name: `meta-${index}`, description: text });
      assert.equal(created.status, 201, created.text);
      const issued = await call('POST', '/v1/api-key', { name: text, datastores: [`meta-${index}`] });
      assert.equal(issued.status, 201, issued.text);
    }
    const stores = (await call('GET', '/v1/datastore')).body as { name: string; description: string }[];
    const keys = (await call('GET', '/v1/api-key')).body as { name: string; datastores: string[] }[];
    for (const [index, text] of HOSTILE.entries()) {
      assert.equal(stores.find((store) => store.name === `meta-${index}`)?.description, text);
      assert.equal(keys.find((key) => key.datastores[0] === `meta-${index}`)?.name, text);
    }
  });

  describe('Area B subject data', () => {
    let api: ApiClient;
    const ids = new Map<string, string>();

    before(async () => {
      api = await apiClient(service, 'meta-subjects');
      const created = await api.call('/api/entity/create', {
        json: [...HOSTILE, 'plain value'].map((text) => ({
          name: 'users',
          attributes: [
            { name: 'identity', value: text },
            { name: 'note', value: text },
          ],
        })),
      });
      assert.equal(created.status, 203, created.text);
      [...HOSTILE, 'plain value'].forEach((text, index) => ids.set(text, created.body[index].id));
    });

    it('stores attribute values verbatim and finds each by identity exactly, wildcards included', async () => {
      const found = await api.call('/api/entity/get-by-identity', { json: HOSTILE });
      assert.equal(found.status, 200, found.text);
      HOSTILE.forEach((text, index) => {
        const item = found.body[index];
        assert.deepEqual(
          item.entities.map((entity: { id: string }) => entity.id),
          [ids.get(text)],
          `identity ${text}`,
        );
        assert.deepEqual(item.entities[0].attributes, [
          { name: 'identity', value: text },
          { name: 'note', value: text },
        ]);
      });
      const near = await api.call('/api/entity/get-by-identity', {
        json: ['plain%', 'plain_value', '%%', "''"],
      });
      assert.ok(
        near.body.every((item: { entities: unknown[] }) => item.entities.length === 0),
        near.text,
      );
    });

    it('updates values to metacharacters and reads them back', async () => {
      const id = ids.get('plain value') as string;
      for (const text of HOSTILE) {
        const updated = await api.call('/api/attribute/update', {
          json: [{ id, attributes: [{ name: 'note', value: text }] }],
        });
        assert.equal(updated.status, 200, updated.text);
        const read = await api.call('/api/entity/get-by-id', { json: [id] });
        assert.deepEqual(
          read.body[0].attributes.find((attribute: { name: string }) => attribute.name === 'note'),
          { name: 'note', value: text },
        );
      }
    });

    it('refuses metacharacters in table, attribute and datastore names with 400, and filters the audit log exactly', async () => {
      // `_` is a valid table and attribute name; every other hostile text is not.
      for (const text of HOSTILE.filter((candidate) => candidate !== '_')) {
        const table = await api.call('/api/entity/create', { json: [{ name: text }] });
        assert.equal(table.status, 400, table.text);
        const attribute = await api.call('/api/entity/create', {
          json: [{ name: 'users', attributes: [{ name: text, value: 'x' }] }],
        });
        assert.equal(attribute.status, 400, attribute.text);
        const userDelete = await api.call('/api/user/delete', {
          json: { entityId: ids.get('plain value'), attributeNames: `users.${text}` },
        });
        assert.equal(userDelete.status, 400, userDelete.text);
        const header = await api.call('/api/entity/get-by-id', { json: ['x'], headers: { datastore: text } });
        assert.ok([403, 404].includes(header.status), header.text);
        const audit = await call('GET', `/v1/audit-log?action=${encodeURIComponent(text)}`);
        assert.ok(audit.status === 422 || audit.body.total === 0, `${text}: ${audit.text}`);
      }
      const underscore = await api.call('/api/user/delete', {
        json: { entityId: ids.get('plain value'), attributeNames: 'users._' },
      });
      assert.equal(underscore.status, 200, underscore.text);
      assert.equal(underscore.body.deleted, 0, '`_` names no attribute: no wildcard');
      const stillThere = await api.call('/api/entity/get-by-id', { json: [...ids.values()] });
      assert.ok(
        stillThere.body.every((item: { error: unknown; attributes: unknown[] }) => item.error === null),
      );
      assert.ok(stillThere.body.every((item: { attributes: unknown[] }) => item.attributes.length === 2));
    });
  });
});
