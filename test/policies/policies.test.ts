import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { read, scopedToken } from '../connections/support.ts';

describe('DSR policies and rules', () => {
  let service: TestService;
  let token: string;
  before(async () => {
    service = await startTestService();
    token = await service.rootToken();
  });
  after(() => service.stop());

  const patchPolicies = (json: unknown) => service.call('PATCH', '/v1/dsr/policy', { token, json });
  const patchRules = (policyKey: string, json: unknown) =>
    service.call('PATCH', `/v1/dsr/policy/${policyKey}/rule`, { token, json });
  const keys = (list: { key: string }[]) => list.map((entry) => entry.key);

  it('lists the seeded default policies with their rules', async () => {
    const page = await read(service, '/v1/dsr/policy');
    assert.equal(page.page, 1);
    assert.equal(page.size, 50);
    assert.ok(page.total >= 2);
    const access = page.items.find((policy: { key: string }) => policy.key === 'default_access_policy');
    assert.equal(access.drp_action, 'access');
    assert.equal(access.execution_timeframe, 45);
    assert.equal(access.client_id, null);
    assert.deepEqual(access.rules, [
      {
        id: 'rul_default_access',
        name: 'Default access rule',
        key: 'default_access_rule',
        action_type: 'access',
        masking_strategy: null,
        storage_destination_id: 'sto_default',
        storage_destination_key: 'default_storage',
        targets: ['*'],
      },
    ]);
    const erasure = await read(service, '/v1/dsr/policy/default_erasure_policy');
    assert.equal(erasure.id, 'pol_default_erasure');
    assert.deepEqual(erasure.rules[0].masking_strategy, { strategy: 'nullify', configuration: {} });
    assert.equal(erasure.rules[0].storage_destination_key, null);
    assert.ok(!Number.isNaN(Date.parse(erasure.created_at)));
  });

  it('creates policies with defaults and updates them keeping omitted fields', async () => {
    const created = await patchPolicies([
      { name: 'Marketing erasure', key: 'marketing_erasure' },
      { name: 'Fast access', key: 'fast_access', drp_action: 'access', execution_timeframe: 10 },
    ]);
    assert.equal(created.status, 200);
    assert.deepEqual(created.body.failed, []);
    const [marketing, fast] = created.body.succeeded;
    assert.match(marketing.id, /^pol_/);
    assert.equal(marketing.drp_action, null);
    assert.equal(marketing.execution_timeframe, 45);
    assert.equal(marketing.client_id, service.config.rootClient?.id);
    assert.deepEqual(marketing.rules, []);
    assert.equal(fast.execution_timeframe, 10);

    const renamed = await patchPolicies([{ name: 'Faster access', key: 'fast_access' }]);
    const updated = renamed.body.succeeded[0];
    assert.equal(updated.id, fast.id);
    assert.equal(updated.name, 'Faster access');
    assert.equal(updated.drp_action, 'access');
    assert.equal(updated.execution_timeframe, 10);
    const cleared = await patchPolicies([{ name: 'Faster access', key: 'fast_access', drp_action: null }]);
    assert.equal(cleared.body.succeeded[0].drp_action, null);
    assert.deepEqual(await read(service, '/v1/dsr/policy/fast_access'), cleared.body.succeeded[0]);

    const paged = await read(service, '/v1/dsr/policy?page=2&size=1');
    assert.equal(paged.items.length, 1);
    assert.equal(paged.size, 1);
  });

  it('reports each bad policy item in failed while the good ones apply', async () => {
    const answer = await patchPolicies([
      { name: 'Kept', key: 'kept_policy' },
      { key: 'nameless' },
      { name: 'Typed', key: 'typed_policy', execution_timeframe: '45' },
      { name: 'Zero', key: 'zero_policy', execution_timeframe: 0 },
      { name: 'Extra', key: 'extra_policy', rules: [] },
      { name: 'Key', key: 'bad/key' },
      { name: 'Twice', key: 'kept_policy' },
    ]);
    assert.equal(answer.status, 200);
    assert.deepEqual(keys(answer.body.succeeded), ['kept_policy']);
    const messages = answer.body.failed.map((failure: { message: string }) => failure.message);
    assert.equal(messages.length, 6);
    assert.match(messages[0], /^name is required/);
    assert.match(messages[1], /^execution_timeframe must be integer/);
    assert.match(messages[2], /^execution_timeframe must be >= 1/);
    assert.match(messages[3], /^rules is not an accepted field/);
    assert.match(messages[4], /^key must hold only letters, digits/);
    assert.match(messages[5], /kept_policy appears more than once/);
    assert.deepEqual(answer.body.failed[3].data, { name: 'Extra', key: 'extra_policy' });
    for (const key of ['nameless', 'typed_policy', 'zero_policy', 'extra_policy']) {
      assert.equal((await service.call('GET', `/v1/dsr/policy/${key}`, { token })).status, 404);
    }
    assert.equal((await read(service, '/v1/dsr/policy/kept_policy')).name, 'Kept');
  });

  it('refuses a policy body that is not an array of at most 50 objects and changes nothing', async () => {
    const before = await read(service, '/v1/dsr/policy?size=1000');
    const tooMany = Array.from({ length: 51 }, (_, index) => ({ name: `P${index}`, key: `p_${index}` }));
    for (const json of [{ name: 'x', key: 'x' }, [7], tooMany, 'policies']) {
      const answer = await patchPolicies(json);
      assert.equal(answer.status, 422);
      assert.equal(typeof answer.body.detail, 'string');
    }
    assert.deepEqual(await read(service, '/v1/dsr/policy?size=1000'), before);
    const unknown = await service.call('GET', '/v1/dsr/policy/no_such_policy', { token });
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.detail, /no_such_policy/);
    assert.equal((await service.call('GET', '/v1/dsr/policy?size=5000', { token })).status, 422);
  });

  it('creates rules with the documented defaults and every masking strategy', async () => {
    await patchPolicies([{ name: 'Rules', key: 'rules_policy' }]);
    const answer = await patchRules('rules_policy', [
      { name: 'Collect', key: 'collect', action_type: 'access' },
      { name: 'Null', key: 'null_it', action_type: 'erasure', targets: ['users.email', 'orders.*'] },
      { name: 'Del', key: 'del', action_type: 'erasure', masking_strategy: { strategy: 'delete' } },
      { name: 'Forget', key: 'forget', action_type: 'erasure', masking_strategy: { strategy: 'forget' } },
      {
        name: 'Hash',
        key: 'hash',
        action_type: 'erasure',
        masking_strategy: { strategy: 'hash', configuration: { salt: 'pepper' } },
      },
      {
        name: 'Random',
        key: 'random',
        action_type: 'erasure',
        masking_strategy: { strategy: 'random_string', configuration: { length: 256 } },
      },
      {
        name: 'Rewrite',
        key: 'rewrite',
        action_type: 'erasure',
        masking_strategy: { strategy: 'string_rewrite', configuration: { rewrite_value: 'REDACTED' } },
        targets: ['*', '*'],
      },
    ]);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body.failed, []);
    const byKey = Object.fromEntries(answer.body.succeeded.map((rule: { key: string }) => [rule.key, rule]));
    assert.equal(byKey.collect.storage_destination_key, 'default_storage');
    assert.equal(byKey.collect.storage_destination_id, 'sto_default');
    assert.equal(byKey.collect.masking_strategy, null);
    assert.deepEqual(byKey.collect.targets, ['*']);
    assert.match(byKey.collect.id, /^rul_/);
    assert.deepEqual(byKey.null_it.masking_strategy, { strategy: 'nullify', configuration: {} });
    assert.deepEqual(byKey.null_it.targets, ['users.email', 'orders.*']);
    assert.equal(byKey.null_it.storage_destination_key, null);
    assert.deepEqual(byKey.hash.masking_strategy, { strategy: 'hash', configuration: { salt: 'pepper' } });
    assert.deepEqual(byKey.random.masking_strategy.configuration, { length: 256 });
    assert.deepEqual(byKey.rewrite.targets, ['*']);

    const policy = await read(service, '/v1/dsr/policy/rules_policy');
    assert.equal(policy.rules.length, 7);
    assert.deepEqual(
      policy.rules.find((rule: { key: string }) => rule.key === 'hash'),
      byKey.hash,
    );

    const replaced = await patchRules('rules_policy', [
      {
        name: 'Null again',
        key: 'null_it',
        action_type: 'erasure',
        masking_strategy: { strategy: 'delete' },
      },
    ]);
    assert.equal(replaced.body.succeeded[0].id, byKey.null_it.id);
    assert.deepEqual(replaced.body.succeeded[0].masking_strategy, { strategy: 'delete', configuration: {} });
    assert.deepEqual(replaced.body.succeeded[0].targets, ['*']);
  });

  it('reports each bad rule item in failed while the good ones apply', async () => {
    await patchPolicies([{ name: 'Strict', key: 'strict_policy' }]);
    const erasure = (masking_strategy: unknown) => ({
      name: 'E',
      key: 'e',
      action_type: 'erasure',
      masking_strategy,
    });
    const bad: [unknown, RegExp][] = [
      [{ name: 'A', key: 'a', action_type: 'read' }, /^action_type/],
      [{ key: 'a', action_type: 'access' }, /^name is required/],
      [{ name: 'A', key: 'a', action_type: 'access', storage_destination_key: 'nowhere' }, /nowhere/],
      [
        { name: 'A', key: 'a', action_type: 'access', masking_strategy: { strategy: 'nullify' } },
        /masking_strategy applies to erasure rules only/,
      ],
      [
        { name: 'E', key: 'e', action_type: 'erasure', storage_destination_key: 'default_storage' },
        /storage_destination_key applies to access rules only/,
      ],
      [erasure({ strategy: 'shred' }), /^masking_strategy.strategy/],
      [erasure({ strategy: 'nullify', configuration: { x: 1 } }), /configuration.x is not an accepted field/],
      [erasure({ strategy: 'hash', configuration: { salt: 5 } }), /configuration.salt must be string/],
      [
        erasure({ strategy: 'random_string', configuration: { length: 0 } }),
        /configuration.length must be >= 1/,
      ],
      [
        erasure({ strategy: 'random_string', configuration: { length: 257 } }),
        /configuration.length must be <= 256/,
      ],
      [erasure({ strategy: 'random_string', configuration: { length: '8' } }), /length must be integer/],
      [erasure({ strategy: 'string_rewrite' }), /configuration.rewrite_value is required/],
      [erasure({ strategy: 'hash', extra: true }), /masking_strategy.extra is not an accepted field/],
      [erasure('nullify'), /^masking_strategy must be object/],
      [{ name: 'E', key: 'e', action_type: 'erasure', targets: [] }, /^targets/],
      [
        { name: 'E', key: 'e', action_type: 'erasure', targets: ['email'] },
        /^targets.0 must be \*, <table>.\* or <table>.<attribute>\.$/,
      ],
      [{ name: 'E', key: 'e', action_type: 'erasure', targets: ['users.'] }, /^targets.0/],
      [{ name: 'E', key: 'e', action_type: 'erasure', targets: ['a.b.c'] }, /^targets.0/],
      [{ name: 'E', key: 'e', action_type: 'erasure', targets: 'users.*' }, /^targets must be array/],
      [{ name: 'E', key: 'e', action_type: 'erasure', surprise: 1 }, /surprise is not an accepted field/],
    ];
    const answer = await patchRules('strict_policy', [
      { name: 'Good', key: 'good', action_type: 'erasure', targets: ['users.email'] },
      ...bad.map(([item]) => item),
      { name: 'Twice', key: 'good', action_type: 'access' },
    ]);
    assert.equal(answer.status, 200);
    assert.deepEqual(keys(answer.body.succeeded), ['good']);
    assert.equal(answer.body.failed.length, bad.length + 1);
    bad.forEach(([item, pattern], index) => {
      assert.match(answer.body.failed[index].message, pattern, JSON.stringify(item));
    });
    assert.match(answer.body.failed[bad.length].message, /good appears more than once/);
    assert.deepEqual(keys((await read(service, '/v1/dsr/policy/strict_policy')).rules), ['good']);
  });

  it('refuses a body with a rule that names no action: 422 naming action_type and the rule, nothing stored', async () => {
    await patchPolicies([{ name: 'Access only', key: 'access_only', drp_action: 'access' }]);
    const before = await read(service, '/v1/dsr/policy/access_only');
    const answer = await patchRules('access_only', [
      { name: 'Good', key: 'good', action_type: 'access' },
      { name: 'No action', key: 'no_action' },
    ]);
    assert.equal(answer.status, 422);
    assert.match(answer.body.detail, /^action_type is required: rule 2 \(no_action\) names no action\./);
    assert.match(answer.body.detail, /access, erasure/);
    assert.deepEqual(await read(service, '/v1/dsr/policy/access_only'), before);
  });

  it('refuses rule bodies for unknown policies or of the wrong shape and changes nothing', async () => {
    const before = await read(service, '/v1/dsr/policy?size=1000');
    const unknown = await patchRules('no_such_policy', [{ name: 'R', key: 'r', action_type: 'access' }]);
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.detail, /no_such_policy/);
    const tooMany = Array.from({ length: 51 }, (_, index) => ({
      name: `R${index}`,
      key: `r${index}`,
      action_type: 'access',
    }));
    for (const json of [tooMany, { name: 'R', key: 'r', action_type: 'access' }, ['r'], null]) {
      assert.equal((await patchRules('default_access_policy', json)).status, 422);
    }
    assert.deepEqual(await read(service, '/v1/dsr/policy?size=1000'), before);
  });

  it('requires a token and the policy scopes', async () => {
    const before = await read(service, '/v1/dsr/policy?size=1000');
    assert.equal((await service.call('GET', '/v1/dsr/policy')).status, 401);
    const reader = await scopedToken(service, ['policy:read']);
    const unrelated = await scopedToken(service, ['connection:read', 'webhook:read']);
    assert.equal((await service.call('GET', '/v1/dsr/policy', { token: reader })).status, 200);
    assert.equal(
      (await service.call('GET', '/v1/dsr/policy/default_access_policy', { token: reader })).status,
      200,
    );
    for (const path of ['/v1/dsr/policy', '/v1/dsr/policy/default_access_policy']) {
      assert.equal((await service.call('GET', path, { token: unrelated })).status, 403);
    }
    for (const caller of [reader, unrelated]) {
      const policies = await service.call('PATCH', '/v1/dsr/policy', {
        token: caller,
        json: [{ name: 'Nope', key: 'nope' }],
      });
      assert.equal(policies.status, 403);
      const rules = await service.call('PATCH', '/v1/dsr/policy/default_access_policy/rule', {
        token: caller,
        json: [{ name: 'Nope', key: 'nope', action_type: 'access' }],
      });
      assert.equal(rules.status, 403);
    }
    assert.deepEqual(await read(service, '/v1/dsr/policy?size=1000'), before);
    const writer = await scopedToken(service, ['policy:create_or_update']);
    assert.equal((await service.call('GET', '/v1/dsr/policy', { token: writer })).status, 403);
    const written = await service.call('PATCH', '/v1/dsr/policy', {
      token: writer,
      json: [{ name: 'Written', key: 'written' }],
    });
    assert.equal(written.status, 200);
    assert.match(written.body.succeeded[0].client_id, /^cli_/);
  });

  it('answers under /v1, /api/v1 and bare', async () => {
    for (const prefix of ['/v1', '/api/v1', '']) {
      const answer = await service.call('GET', `${prefix}/dsr/policy/default_erasure_policy`, { token });
      assert.equal(answer.status, 200, prefix);
      assert.equal(answer.body.key, 'default_erasure_policy');
    }
  });

  it('lists the masking strategies of the registry, each accepted by the rule checks as listed', async () => {
    const listed = await service.call('GET', '/v1/masking/strategy', { token });
    assert.equal(listed.status, 200);
    const strategies = listed.body as {
      name: string;
      effect: string;
      configurations: { key: string; optional: boolean }[];
    }[];
    assert.deepEqual(
      strategies.map((strategy) => strategy.name),
      ['nullify', 'delete', 'forget', 'hash', 'random_string', 'string_rewrite'],
    );
    assert.deepEqual(
      strategies.map((strategy) => strategy.effect),
      ['rewrite', 'delete', 'forget', 'rewrite', 'rewrite', 'rewrite'],
    );
    const created = await patchPolicies([{ name: 'Strategies', key: 'strategies_policy' }]);
    assert.equal(created.status, 200);
    for (const strategy of strategies) {
      const configuration = Object.fromEntries(
        strategy.configurations.filter((field) => !field.optional).map((field) => [field.key, 'x']),
      );
      const answer = await patchRules('strategies_policy', [
        {
          name: strategy.name,
          key: `rule_${strategy.name}`,
          action_type: 'erasure',
          masking_strategy: { strategy: strategy.name, configuration },
        },
      ]);
      assert.deepEqual((answer.body as { failed: unknown[] }).failed, [], strategy.name);
    }
    const unknown = await patchRules('strategies_policy', [
      { name: 'x', key: 'rule_x', action_type: 'erasure', masking_strategy: { strategy: 'shred' } },
    ]);
    assert.equal((unknown.body as { failed: unknown[] }).failed.length, 1);
    assert.equal((await service.call('GET', '/v1/masking/strategy')).status, 401);
    const withoutScope = await scopedToken(service, ['connection:read']);
    assert.equal((await service.call('GET', '/v1/masking/strategy', { token: withoutScope })).status, 403);
  });
});
