// The console's Events page (issue 39) in a real Chromium against a real Lethe with its worker, posting to a
// real local receiver: an owner adds a subscription with its events and format, reads the signing secret
// once and verifies a delivered CloudEvent with the Standard Webhooks reference library, reads the delivery
// log and redelivers (the same webhook-id), rotates the secret (a new one, shown once), disables and enables
// the subscription, and turns the daily digest on for an operator. The event boxes are the catalogue's, read
// from GET /v1/event-type (the page keeps no list of its own): each labelled with its title and name.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { EVENT_TITLES, EVENT_TYPES } from '../../src/events/catalog.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { subjectSideConfig } from '../helpers/subject-side.ts';
import { type Receiver, startReceiver, submit } from '../privacy-requests/support.ts';
import {
  accessibilityViolations,
  ensureConsoleBuilt,
  launchBrowser,
  signInAsOperator,
  watchForPageProblems,
} from './browser.ts';

const PASSWORD = 'owner password for the events page';

describe('event subscriptions in the console', () => {
  let service: TestService;
  let browser: Browser;
  let receiver: Receiver;
  let page: Page;
  const pageProblems: string[] = [];

  before(async () => {
    ensureConsoleBuilt();
    receiver = await startReceiver();
    const [started, launched] = await Promise.allSettled([
      startTestService(subjectSideConfig(undefined), { worker: true }),
      launchBrowser(),
    ]);
    if (started.status === 'fulfilled') service = started.value;
    if (launched.status === 'fulfilled') browser = launched.value;
    if (started.status === 'rejected') throw started.reason;
    if (launched.status === 'rejected') throw launched.reason;
    const token = await service.rootToken();
    const created = await service.call('POST', '/v1/user', {
      token,
      json: { username: 'erin.owner', password: PASSWORD, roles: ['owner'], email: 'erin@lethe.test' },
    });
    assert.equal(created.status, 201, created.text);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    watchForPageProblems(page, pageProblems);
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
    await receiver?.close();
  });

  test('an owner subscribes, verifies, redelivers, rotates, disables and turns the digest on', async () => {
    await signInAsOperator(page, service, 'erin.owner', PASSWORD);
    const catalogueRead = page.waitForResponse(
      (response) => new URL(response.url()).pathname === '/v1/event-type' && response.status() === 200,
    );
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Events', exact: true })
      .click();
    await page.getByText('No event subscription yet.').waitFor();
    await catalogueRead;

    const form = page.getByRole('form', { name: 'Add an event subscription' });
    await form.getByRole('checkbox').first().waitFor();
    const offered = await form
      .getByRole('checkbox')
      .evaluateAll((boxes) =>
        boxes.map((box) => [(box as HTMLInputElement).value, box.parentElement?.textContent?.trim()]),
      );
    assert.deepEqual(
      offered,
      EVENT_TYPES.map((type) => [type, `${EVENT_TITLES[type]} ${type}`]),
      "the console offers the catalogue's events, in its order, labelled with their titles",
    );
    const violations = await accessibilityViolations(page);
    assert.deepEqual(
      violations.map((violation) => `${violation.id}: ${violation.help}`),
      [],
    );

    // No silent defaults: without an event the form says what is missing and nothing is stored.
    await form.getByLabel('Key').fill('alerts');
    await form.getByLabel('URL').fill(`${receiver.url}/alerts`);
    await form.getByLabel('Format').selectOption('cloudevents');
    await form.getByRole('button', { name: 'Add subscription' }).click();
    await form.getByText('Choose at least one event to send.').waitFor();
    const token = await service.rootToken();
    assert.equal((await service.call('GET', '/v1/event-subscription', { token })).body.total, 0);

    await form.getByLabel('privacy_request.received').check();
    await form.getByLabel('privacy_request.approved').check();
    await form.getByRole('button', { name: 'Add subscription' }).click();
    const shown = page.getByRole('status').filter({ hasText: 'Signing secret of alerts' });
    const secret = (await shown.locator('code').textContent()) ?? '';
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/, 'the secret in the Standard Webhooks form');
    await shown.getByRole('button', { name: 'I have stored it' }).click();
    assert.equal(await page.getByText(secret).count(), 0, 'the secret is gone once dismissed');
    const row = page.getByRole('row').filter({ hasText: 'alerts' });
    await row.getByText('privacy_request.received, privacy_request.approved').waitFor();

    // A request is received: the event arrives, signed with the secret the page showed.
    const request = await submit(service, {
      policy_key: 'default_access_policy',
      identity: { email: 'subject@example.com' },
    });
    const [first] = await receiver.waitFor('/alerts', 1, 60_000);
    assert.ok(first);
    const headers = first.headers as Record<string, string>;
    new Webhook(secret).verify(first.raw, {
      'webhook-id': headers['webhook-id'] as string,
      'webhook-timestamp': headers['webhook-timestamp'] as string,
      'webhook-signature': headers['webhook-signature'] as string,
    });
    assert.equal(first.body.subject, request.id);

    // The delivery log, and a redelivery with the same webhook-id.
    await row.getByRole('button', { name: 'Deliveries of alerts' }).click();
    const log = page.getByRole('region', { name: 'Deliveries of alerts' });
    const delivered = log.getByRole('row').filter({ hasText: 'privacy_request.received' }).first();
    for (let tries = 0; !(await delivered.getByText('delivered').count()); tries++) {
      assert.ok(tries < 60, 'the delivery is logged as delivered');
      await log.getByRole('button', { name: 'Refresh deliveries' }).click();
      await page.waitForTimeout(500);
    }
    await delivered.getByRole('button', { name: 'Redeliver privacy_request.received' }).click();
    await log.getByText(`queued again (same webhook-id ${headers['webhook-id']})`).waitFor();
    const sameId = () =>
      receiver.callsTo('/alerts').filter((call) => call.headers['webhook-id'] === headers['webhook-id']);
    for (let tries = 0; sameId().length < 2; tries++) {
      assert.ok(tries < 600, 'the redelivery arrives');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // Rotation: confirmed, then a new secret shown once.
    await row.getByRole('button', { name: 'Rotate the secret of alerts' }).click();
    await row.getByRole('button', { name: 'Yes, rotate: the old secret stops working' }).click();
    const rotated = page.getByRole('status').filter({ hasText: 'Signing secret of alerts' });
    const newSecret = (await rotated.locator('code').textContent()) ?? '';
    assert.match(newSecret, /^whsec_/);
    assert.notEqual(newSecret, secret);
    await rotated.getByRole('button', { name: 'I have stored it' }).click();

    // Disable and enable, as the API then reads it.
    await row.getByRole('button', { name: 'Disable alerts' }).click();
    await page.getByText('alerts disabled.').waitFor();
    const disabled = await service.call('GET', '/v1/event-subscription/alerts', { token });
    assert.equal(disabled.body.enabled, false);
    assert.match(disabled.body.url, /^http:\/\/127\.0\.0\.1/);
    await row.getByRole('button', { name: 'Enable alerts' }).click();
    await page.getByText('alerts enabled.').waitFor();
    const enabled = await service.call('GET', '/v1/event-subscription/alerts', { token });
    assert.equal(enabled.body.enabled, true);
    assert.deepEqual(enabled.body.events, ['privacy_request.received', 'privacy_request.approved']);

    // The daily digest, per operator.
    // A click, not check(): the box shows the stored value, which changes once the API has answered.
    await page.getByLabel('Daily digest for erin.owner').click();
    await page.getByText('The daily digest is on for erin.owner.').waitFor();
    const users = await service.call('GET', '/v1/user', { token });
    const erin = (users.body as { username: string; digest: boolean }[]).find(
      (user) => user.username === 'erin.owner',
    );
    assert.equal(erin?.digest, true);
    assert.deepEqual(pageProblems, []);
  });
});
