// A new user's first minutes in the console, in a real Chromium against a real Lethe (issue 24): the
// sign-in opens on the root client while no operator account exists, a reload keeps the session, each
// role lands on a page it can read, a refused connection URL names both variables and keeps the form,
// policies offer the service's actions and masking strategies, the audit log reads as key/value pairs,
// a datastore's entities are browsed masked and each reveal is audited, client scopes are described.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { SCOPES } from '../../src/auth/scopes.ts';
import { MASKING_STRATEGY_NAMES } from '../../src/masking/strategies.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { apiClient } from '../helpers/area-b.ts';
import {
  accessibilityViolations,
  ensureConsoleBuilt,
  launchBrowser,
  screenshot,
  signIn,
  signInAsOperator,
  watchForPageProblems,
} from './browser.ts';

const PASSWORD = 'a password for the first minutes';

describe("the console's first minutes", () => {
  let service: TestService;
  let browser: Browser;
  let token: string;
  const pageProblems: string[] = [];

  const api = async (method: string, urlPath: string, json?: unknown) => {
    const answer = await service.call(method, urlPath, { token, json });
    assert.ok(answer.status < 300, `${method} ${urlPath}: ${answer.status} ${answer.text}`);
    return answer.body;
  };

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    watchForPageProblems(page, pageProblems);
    return page;
  }

  before(async () => {
    ensureConsoleBuilt();
    const [started, launched] = await Promise.allSettled([startTestService(), launchBrowser()]);
    if (started.status === 'fulfilled') service = started.value;
    if (launched.status === 'fulfilled') browser = launched.value;
    if (started.status === 'rejected') throw started.reason;
    if (launched.status === 'rejected') throw launched.reason;
    token = await service.rootToken();
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  test('on a fresh start (no operator account) the sign-in opens on the root client, its hint shown', async () => {
    const page = await newPage();
    await page.goto(`${service.url}/console`);
    await page.getByRole('form', { name: 'Sign in' }).waitFor();
    assert.equal(await page.getByLabel('A management client').isChecked(), true);
    assert.equal(await page.getByLabel('An operator account').isChecked(), false);
    assert.match((await page.getByTestId('first-start').textContent()) ?? '', /\.lethe\/root-client\.json/);
    assert.ok(await page.getByLabel('Client id').isVisible());
    await page.context().close();
  });

  test('each role lands on a page it can read, even from a page the last sign-in left open', async () => {
    for (const [username, roles] of [
      ['ann.approver', ['approver']],
      ['olga.owner', ['owner']],
    ] as const) {
      await api('POST', '/v1/user', { username, password: PASSWORD, roles });
    }
    // Once an account exists, the sign-in opens on it.
    const page = await newPage();
    await page.goto(`${service.url}/console`);
    await page.getByRole('form', { name: 'Sign in' }).waitFor();
    assert.equal(await page.getByLabel('An operator account').isChecked(), true);
    assert.equal(await page.getByTestId('first-start').count(), 0);

    // The owner leaves the Users page open and signs out; the approver signs in on the same tab.
    await signInAsOperator(page, service, 'olga.owner', PASSWORD);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    assert.equal(new URL(page.url()).pathname, '/console/users');
    await page.getByLabel('Username').fill('ann.approver');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Privacy requests' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/requests');

    // A client that may only manage accounts lands on Users.
    const accounts = await api('POST', '/v1/oauth/client', {
      name: 'accounts only',
      scopes: ['user:read', 'user:*'],
    });
    await signIn(page, service, '/console', { id: accounts.client_id, secret: accounts.client_secret });
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/users');
    await page.context().close();
  });

  test('a reload keeps the session and the page', async () => {
    const page = await newPage();
    await signInAsOperator(page, service, 'olga.owner', PASSWORD);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    assert.equal(await page.locator('.who .hint').textContent(), 'olga.owner');
    assert.equal(await page.getByRole('form', { name: 'Sign in' }).count(), 0);
    await page.context().close();
  });

  test('a refused http URL names both variables and the form keeps what was typed', async () => {
    await api('PATCH', '/v1/connection', [
      { key: 'local_receiver', name: 'Local receiver', connection_type: 'https', access: 'read' },
    ]);
    const page = await newPage();
    await signIn(page, service, '/console/connections/local_receiver');
    const secrets = page.getByRole('form', { name: 'Connection secrets' });
    await secrets.getByLabel('Callback URL').fill('http://127.0.0.1:9/hook');
    await secrets.getByLabel('Authorization header value').fill('Bearer typed-once');
    await secrets.getByRole('button', { name: 'Save secrets' }).click();
    const alert = secrets.getByRole('alert');
    await alert.waitFor();
    const text = (await alert.textContent()) ?? '';
    assert.match(text, /LETHE_ALLOW_INSECURE_WEBHOOKS/);
    assert.match(text, /LETHE_WEBHOOK_ALLOWED_HOSTS/);
    assert.equal(await secrets.getByLabel('Callback URL').inputValue(), 'http://127.0.0.1:9/hook');
    assert.equal(await secrets.getByLabel('Authorization header value').inputValue(), 'Bearer typed-once');
    await page.context().close();
  });

  test("policies: the action and the masking strategy are the service's choices, and a create says so", async () => {
    const page = await newPage();
    await signIn(page, service, '/console/policies');
    const create = page.getByRole('form', { name: 'Create a policy' });
    const action = create.getByLabel('Action (optional)');
    assert.equal(await action.evaluate((element) => element.tagName), 'SELECT');
    await create.getByLabel('Name', { exact: true }).fill('Marketing erasure');
    await create.getByLabel('Key', { exact: true }).fill('marketing_erasure');
    await action.selectOption('erasure');
    await create.getByRole('button', { name: 'Create policy' }).click();
    await create.getByText('Policy marketing_erasure created.').waitFor();
    assert.equal((await api('GET', '/v1/dsr/policy/marketing_erasure')).drp_action, 'erasure');

    await page.getByRole('link', { name: 'Marketing erasure' }).first().click();
    const rule = page.getByRole('form', { name: 'Add or redefine a rule' });
    const strategy = rule.getByLabel('Masking strategy');
    await rule.locator('option[value="string_rewrite"]').waitFor({ state: 'attached' });
    const offered = await strategy
      .locator('option')
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
    assert.deepEqual(offered, [...MASKING_STRATEGY_NAMES]);
    // Every select on the page is as wide as its longest choice: nothing is cut off.
    await page.getByRole('form', { name: 'Add to pre-execution webhooks' }).getByLabel('Direction').waitFor();
    const cut = await page.locator('main select').evaluateAll((selects) => {
      const canvas = document.createElement('canvas').getContext('2d') as CanvasRenderingContext2D;
      return selects.flatMap((select) => {
        const style = getComputedStyle(select);
        canvas.font = `${style.fontSize} ${style.fontFamily}`;
        const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16;
        return [...(select as HTMLSelectElement).options]
          .filter((option) => canvas.measureText(option.text).width > room)
          .map((option) => `${select.id}: ${option.text}`);
      });
    });
    assert.deepEqual(cut, [], 'choices cut off');
    // The action types and what their rules take are the service's registry (GET /v1/action-type).
    const actionTypes = (await api('GET', '/v1/action-type')) as {
      name: string;
      rule: { masking_strategy: boolean; targets: boolean };
    }[];
    const typesOffered = await rule
      .getByLabel('Action type')
      .locator('option')
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
    assert.deepEqual(
      typesOffered,
      actionTypes.map((type) => type.name),
    );
    for (const type of actionTypes) {
      await rule.getByLabel('Action type').selectOption(type.name);
      assert.equal(
        await strategy.isDisabled(),
        !type.rule.masking_strategy,
        `${type.name}: masking strategy`,
      );
      assert.equal(
        await rule.getByLabel('Targets').isDisabled(),
        !type.rule.targets,
        `${type.name}: targets`,
      );
    }
    await rule.getByLabel('Action type').selectOption('access');
    assert.equal(await strategy.isDisabled(), true, 'an access rule masks nothing');
    await rule.getByLabel('Action type').selectOption('erasure');
    assert.equal(await strategy.isDisabled(), false);
    await strategy.selectOption('hash');
    await rule.getByLabel('Rule name').fill('Hash emails');
    await rule.getByLabel('Rule key').fill('hash_emails');
    await rule.getByRole('button', { name: 'Save rule' }).click();
    await rule.getByText('Rule hash_emails saved.').waitFor();
    await screenshot(page, 'policy-rule-form');
    await page.context().close();
  });

  test('clients: each scope has its description, in the server order', async () => {
    const page = await newPage();
    await signIn(page, service, '/console/clients');
    const form = page.getByRole('form', { name: 'Create a client' });
    await form.locator('.scope-description').first().waitFor();
    const shown = await form.locator('.scope-choice code').allTextContents();
    assert.deepEqual(shown, [...SCOPES]);
    const described = await form
      .getByRole('checkbox', { name: 'audit-log:read' })
      .getAttribute('aria-describedby');
    assert.ok(described);
    assert.equal(await page.locator(`[id="${described}"]`).textContent(), 'Read the audit log.');
    await page.context().close();
  });

  test('a datastore shows its entity count; entities are browsed masked and each reveal is audited', async () => {
    const store = await apiClient(service, 'crm');
    const created = await store.call('/api/entity/create', {
      json: [
        { name: 'users', attributes: [{ name: 'email', value: 'hidden.person@example.com' }] },
        { name: 'users', attributes: [{ name: 'email', value: 'other.person@example.com' }] },
      ],
    });
    const [first] = created.body as { id: string }[];
    assert.ok(first);

    const page = await newPage();
    await signInAsOperator(page, service, 'olga.owner', PASSWORD);
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Datastores & keys' })
      .click();
    const count = page.getByRole('link', { name: 'entities of crm' });
    assert.equal(await count.textContent(), '2 entities of crm');
    await count.click();
    await page.getByRole('heading', { level: 1, name: 'Entities of crm' }).waitFor();
    await page.getByRole('cell', { name: first.id, exact: true }).waitFor();
    assert.doesNotMatch((await page.locator('main').textContent()) ?? '', /person@example\.com/);

    await page.getByRole('button', { name: `Reveal email of ${first.id}` }).click();
    await page.getByText('hidden.person@example.com').waitFor();
    assert.doesNotMatch((await page.locator('main').textContent()) ?? '', /other\.person/);

    const audit = (await api('GET', '/v1/audit-log?action=entity.reveal')) as {
      items: { actor: string; datastore: string; entity_ids: string[]; details: object }[];
    };
    assert.equal(audit.items.length, 1);
    assert.equal(audit.items[0]?.actor, 'user:olga.owner');
    assert.deepEqual(audit.items[0]?.entity_ids, [first.id]);
    assert.doesNotMatch(JSON.stringify(audit.items), /person@example/);

    assert.deepEqual(await accessibilityViolations(page), [], 'the entities page passes axe-core');
    await screenshot(page, 'datastore-entities');
    await page.getByRole('button', { name: `Hide values of ${first.id}` }).click();
    assert.equal(await page.getByText('hidden.person@example.com').count(), 0);
    await page.context().close();
  });

  test('the audit log: details as key/value pairs, each time on one line, one naming scheme', async () => {
    const page = await newPage();
    await signIn(page, service, '/console/audit-log');
    const reveal = page.locator('tbody tr', { hasText: 'entity.reveal' });
    await reveal.waitFor();
    const details = reveal.getByRole('cell').last();
    assert.deepEqual(await details.locator('dt').allTextContents(), ['attribute', 'values shown']);
    assert.deepEqual(await details.locator('dd').allTextContents(), ['email', '1']);
    assert.doesNotMatch((await details.textContent()) ?? '', /[{}"]/, 'no raw JSON');

    const policy = page.locator('tbody tr', { hasText: 'policy.upsert' }).first();
    const fields = policy.getByRole('cell').last().locator('div', { hasText: 'fields' });
    assert.match((await fields.locator('dd').textContent()) ?? '', /^[a-z_]+(, [a-z_]+)+$/);

    for (const cell of await page.locator('td.when').all()) {
      const box = await cell.locator('time').boundingBox();
      const lineHeight = await cell.evaluate((element) => parseFloat(getComputedStyle(element).lineHeight));
      assert.ok(box && box.height < lineHeight * 1.5, 'a time fits on one line');
    }
    assert.deepEqual(await accessibilityViolations(page), [], 'the audit log passes axe-core');
    await screenshot(page, 'audit-log-details');
    const actions = await page.locator('td.action code').allTextContents();
    for (const action of actions) assert.match(action, /^[a-z]+(-[a-z]+)*(\.[a-z]+(-[a-z]+)*)+$/);
    await page.context().close();
  });

  test('no page threw a script error or had anything blocked by its CSP', () => {
    assert.deepEqual(pageProblems, []);
  });
});
