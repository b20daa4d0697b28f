// Corrections are published, not probed (issue 34, item 7; docs/decisions.md, "Trust by construction"): an
// update rule's targets say what may be corrected and are required (`*` refused); a correction of any
// other attribute gets one answer, byte for byte, whether some datastore holds it or not, in the visitor's
// language on the page; and the check reads the rules it was given, no store table (it cost a join of
// every entity with every attribute per call).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { correctionsProblem } from '../../src/corrections/service.ts';
import { recordingStatements } from '../helpers/statements.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { definePolicy, openStores, type Stores } from '../privacy-requests/rule-support.ts';
import { engineConfig } from '../privacy-requests/support.ts';

const POLICY = 'rectify_published';
const TITLE = 'Correct my data';

describe('corrections are published, not probed', () => {
  let service: TestService;
  let stores: Stores;
  let token: string;
  before(async () => {
    service = await startTestService(engineConfig, { worker: false });
    token = await service.rootToken();
    stores = await openStores(service);
    await definePolicy(service, POLICY, [
      { name: 'Correct', key: 'correct', action_type: 'update', targets: ['users.name', 'orders.*'] },
    ]);
    const published = await service.call('PUT', '/v1/privacy-center', {
      token,
      json: {
        title: 'Privacy',
        organization_name: 'Example Ltd',
        actions: [
          { policy_key: POLICY, title: TITLE, description: '', identity_inputs: { email: 'required' } },
        ],
      },
    });
    assert.equal(published.status, 200, published.text);
  });
  after(async () => {
    await service.stop();
  });

  const counts = async () =>
    (
      await service.services.db.query<{ requests: number; outbox: number; rules: string }>(
        `SELECT (SELECT count(*)::int FROM privacy_requests) AS requests,
                (SELECT count(*)::int FROM outbox_messages) AS outbox,
                (SELECT string_agg(key || ':' || array_to_string(targets, ','), ' ' ORDER BY key)
                   FROM rules) AS rules`,
      )
    ).rows[0];

  const asJson = (attribute: string) =>
    service.call('POST', '/v1/privacy-center/privacy-request', {
      json: {
        policy_key: POLICY,
        identity: { email: 'probe@example.com' },
        corrections: [{ attribute, value: '1' }],
      },
    });

  const onThePage = async (attribute: string, language: string) => {
    const response = await fetch(`${service.url}/privacy-center/requests?lang=${language}`, {
      method: 'POST',
      body: new URLSearchParams({
        policy_key: POLICY,
        email: 'probe@example.com',
        correction_attribute_1: attribute,
        correction_value_1: '1',
      }),
      redirect: 'manual',
    });
    return { status: response.status, text: await response.text() };
  };

  it('an update rule without targets, or with *, is 422 naming it, and nothing is stored', async () => {
    const before = await counts();
    for (const rule of [
      { name: 'Correct', key: 'correct', action_type: 'update' },
      { name: 'Correct', key: 'correct', action_type: 'update', targets: ['*'] },
      { name: 'Fix', key: 'fix', action_type: 'update', targets: ['users.*', '*'] },
    ]) {
      const answer = await service.call('PATCH', `/v1/dsr/policy/${POLICY}/rule`, {
        token,
        json: [{ name: 'Access', key: 'access_too', action_type: 'access' }, rule],
      });
      assert.equal(answer.status, 422, answer.text);
      assert.equal(
        answer.body.detail,
        `targets is required for update rules and may not be *: rule 2 (${rule.key}) must name what it publishes, each as <table>.<attribute> or <table>.*; nothing was stored.`,
      );
    }
    assert.deepEqual(await counts(), before, 'no rule stored or changed');
    const named = await service.call('PATCH', `/v1/dsr/policy/${POLICY}/rule`, {
      token,
      json: [{ name: 'Correct', key: 'correct', action_type: 'update', targets: ['users.name', 'orders.*'] }],
    });
    assert.deepEqual(named.body.failed, [], named.text);
  });

  it('an unpublished attribute gets the same answer, byte for byte, whether a datastore holds it or not', async () => {
    const before = await counts();
    const absentJson = await asJson('vault.ssn');
    const absentPage = await onThePage('vault.ssn', 'de');
    // Now a datastore holds vault.ssn: the answers must not change.
    const held = await stores.crm.call('/api/entity/create', {
      json: [{ name: 'vault', attributes: [{ name: 'ssn', value: '078-05-1120' }] }],
    });
    assert.equal(held.status, 203, held.text);
    const heldJson = await asJson('vault.ssn');
    const heldPage = await onThePage('vault.ssn', 'de');

    assert.equal(absentJson.status, 422, absentJson.text);
    assert.equal(heldJson.status, absentJson.status);
    assert.equal(heldJson.text, absentJson.text, 'the JSON bodies are byte-identical');
    assert.equal(absentJson.body.detail, 'vault.ssn cannot be corrected here.');

    assert.equal(absentPage.status, 422, absentPage.text);
    assert.equal(heldPage.status, absentPage.status);
    assert.ok(
      absentPage.text.includes('vault.ssn kann hier nicht berichtigt werden.'),
      'the refusal in the visitor’s language',
    );
    assert.ok(!absentPage.text.includes('cannot be corrected'), 'no English beside it');
    assert.equal(heldPage.text, absentPage.text, 'the pages are byte-identical, in the visitor’s language');

    // An attribute the datastores hold beside a published one (users.phone) is refused the same way.
    const unpublished = await asJson('users.phone');
    assert.equal(unpublished.status, 422);
    assert.equal(unpublished.body.detail, 'users.phone cannot be corrected here.');
    assert.deepEqual(await counts(), before, 'nothing stored, nothing mailed');

    // Published ones pass: a named attribute, and any attribute of a table published with `*`.
    for (const attribute of ['users.name', 'orders.address', 'orders.anything']) {
      const answer = await asJson(attribute);
      assert.equal(answer.status, 200, `${attribute}: ${answer.text}`);
    }
  });

  it('migration 036: an update rule stored with the old default * publishes nothing afterwards', async () => {
    const db = service.services.db;
    await definePolicy(service, 'rectify_legacy', [
      { name: 'Correct', key: 'legacy_correct', action_type: 'update', targets: ['users.name'] },
    ]);
    // As a rule stored before the targets were required: the column's default.
    await db.query(`UPDATE rules SET targets = '{*}' WHERE key = 'legacy_correct'`);
    await db.exec(
      await readFile(
        new URL('../../src/db/migrations/036_corrections_and_mail_caps.sql', import.meta.url),
        'utf8',
      ),
    );
    const { rows } = await db.query<{ targets: string[] }>(
      `SELECT targets FROM rules WHERE key = 'legacy_correct'`,
    );
    assert.deepEqual(rows[0]?.targets, []);
    const refused = await service.call('POST', '/v1/privacy-request', {
      token,
      json: [
        {
          policy_key: 'rectify_legacy',
          identity: { email: 'legacy@example.com' },
          corrections: [{ attribute: 'users.name', value: 'x' }],
        },
      ],
    });
    assert.deepEqual(
      refused.body.failed.map((failure: { message: string }) => failure.message),
      ['users.name cannot be corrected here.'],
    );
  });

  it('the check reads the rules it is given and no table, whatever the datastores hold', async () => {
    const { queryable, statements } = recordingStatements(service.services.db);
    const rules = [{ action_type: 'update', targets: ['users.name', 'orders.*'] }];
    const refused = await correctionsProblem(queryable, POLICY, rules, [
      { attribute: 'users.name', value: 'x' },
      { attribute: 'vault.ssn', value: 'x' },
    ]);
    assert.deepEqual(refused, {
      message: 'vault.ssn cannot be corrected here.',
      wording: { key: 'refusal.correction_not_published', values: { attribute: 'vault.ssn' } },
    });
    assert.equal(
      await correctionsProblem(queryable, POLICY, rules, [{ attribute: 'orders.total', value: '1' }]),
      undefined,
    );
    assert.deepEqual(statements, [], 'no statement: not a scan of entities, not even an index lookup');
  });
});
