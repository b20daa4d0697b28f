// An operator accepts an authorized agent's power of attorney in the console, in a real Chromium against a
// real Lethe: the agent submits and proves their email through the API; an approver opens the request,
// finds "Accept power of attorney…", is refused (an empty reason by the form, a blank one by the API, whose
// sentence stays in the dialog and changes nothing), closes the dialog with Escape, then accepts with a
// reason and sees the agent's facts name them and the reason. A viewer never sees the button. Every state
// passes axe's WCAG 2.1 A and AA rules.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  accessibilityViolations,
  ensureConsoleBuilt,
  launchBrowser,
  screenshot,
  signInAsOperator,
  watchForPageProblems,
} from '../console/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  codeIn,
  isKind,
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';

const APPROVER = { username: 'ada.approver', password: 'approver password for the console' };
const VIEWER = { username: 'vic.viewer', password: 'viewer password for the console' };

describe("accepting an authorized agent's power of attorney in the console", () => {
  let mail: MailServer;
  let service: TestService;
  let browser: Browser;
  let token: string;
  const contexts: BrowserContext[] = [];

  before(async () => {
    ensureConsoleBuilt();
    mail = await startMailServer();
    const [started, launched] = await Promise.allSettled([
      startTestService(subjectSideConfig(mail.port), { worker: true }),
      launchBrowser(),
    ]);
    if (started.status === 'fulfilled') service = started.value;
    if (launched.status === 'fulfilled') browser = launched.value;
    if (started.status === 'rejected') throw started.reason;
    if (launched.status === 'rejected') throw launched.reason;
    token = await service.rootToken();
    await publishDefaults(service);
    for (const [operator, role] of [
      [APPROVER, 'approver'],
      [VIEWER, 'viewer'],
    ] as const) {
      const created = await service.call('POST', '/v1/user', {
        token,
        json: { ...operator, roles: [role] },
      });
      assert.equal(created.status, 201, created.text);
    }
  });

  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await service?.stop();
    await mail?.close();
  });

  /** A request an agent submitted for a subject, the agent's email proved: it waits for the subject. */
  async function awaitingAgentRequest(): Promise<string> {
    const agentEmail = `agent.${randomUUID().slice(0, 8)}@example.com`;
    const submitted = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: {
        policy_key: 'default_access_policy',
        identity: { email: `subject.${randomUUID().slice(0, 8)}@example.com` },
        agent: { name: 'Avery Agent', email: agentEmail },
      },
    });
    assert.equal(submitted.status, 200, submitted.text);
    const id = submitted.body.id as string;
    const code = codeIn(await mail.waitFor(isKind('your verification code', agentEmail)));
    const verified = await service.call('POST', `/v1/privacy-request/${id}/verify`, { json: { code } });
    assert.equal(verified.status, 200, verified.text);
    assert.equal(verified.body.status, 'identity_unverified');
    return id;
  }

  async function agentOf(id: string) {
    const shown = await service.call('GET', `/v1/privacy-request/${id}/agent`, { token });
    assert.equal(shown.status, 200, shown.text);
    return shown.body as {
      authorization: string | null;
      authorized_by: string | null;
      reason: string | null;
    };
  }

  const agentFactsOf = (page: Page) => page.locator('dl[aria-label="Authorized agent"]');

  async function openRequestAs(
    operator: { username: string; password: string },
    id: string,
  ): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    const problems: string[] = [];
    watchForPageProblems(page, problems);
    await signInAsOperator(page, service, operator.username, operator.password);
    await page.goto(`${service.url}/console/requests/${id}`);
    await agentFactsOf(page).getByText('not yet: waiting for the subject to confirm the agent').waitFor();
    return { page, problems };
  }

  async function assertAccessible(page: Page, where: string) {
    assert.deepEqual(await accessibilityViolations(page), [], `axe violations on ${where}`);
  }

  test('an approver is refused an empty or blank reason, then accepts with one and sees it', async () => {
    const id = await awaitingAgentRequest();
    const { page, problems } = await openRequestAs(APPROVER, id);
    const acceptButton = page.getByRole('button', { name: 'Accept power of attorney…' });
    await acceptButton.click();
    const dialog = page.getByRole('dialog', { name: 'Accept the power of attorney of Avery Agent' });
    await dialog.waitFor();
    const reason = dialog.getByLabel('Reason');
    assert.equal(await reason.evaluate((element) => element === document.activeElement), true, 'focused');
    assert.match((await dialog.textContent()) ?? '', /1 to 1000 characters, not blank/);
    assert.equal(await reason.getAttribute('maxlength'), '1000');
    await assertAccessible(page, 'the accept dialog');
    await screenshot(page, 'accept-power-of-attorney', false);

    // Empty: the form itself refuses; blank: the API does, and its sentence stays in the open dialog.
    const accept = dialog.getByRole('button', { name: 'Accept', exact: true });
    await accept.click();
    assert.equal(
      await reason.evaluate((element) => (element as HTMLTextAreaElement).validity.valueMissing),
      true,
      'the form refuses an empty reason before sending it',
    );
    assert.equal(await dialog.isVisible(), true);
    await reason.fill('   ');
    await accept.click();
    await dialog
      .getByRole('alert')
      .getByText(/reason/)
      .waitFor();
    assert.equal(await dialog.isVisible(), true, 'the dialog stays open');
    assert.equal((await agentOf(id)).authorization, null, 'nothing changed');
    await assertAccessible(page, 'the accept dialog with the API refusal');

    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await agentOf(id)).authorization, null, 'Escape accepts nothing');

    await acceptButton.click();
    await dialog.waitFor();
    assert.equal(await dialog.getByRole('alert').count(), 0, 'a reopened dialog starts afresh');
    await reason.fill('Signed power of attorney seen, dated 20 November');
    await accept.click();
    await dialog.waitFor({ state: 'hidden' });
    await agentFactsOf(page)
      .getByText(
        /an operator accepted a power of attorney, .* by ada\.approver: Signed power of attorney seen, dated 20 November/,
      )
      .waitFor();
    assert.equal(await acceptButton.count(), 0, 'nothing left to accept');
    const accepted = await agentOf(id);
    assert.equal(accepted.authorization, 'power_of_attorney');
    assert.equal(accepted.authorized_by, APPROVER.username);
    assert.equal(accepted.reason, 'Signed power of attorney seen, dated 20 November');
    await assertAccessible(page, 'the accepted agent');
    assert.deepEqual(problems, []);
  });

  test('a viewer sees the agent waiting and no button to accept it', async () => {
    const id = await awaitingAgentRequest();
    const { page, problems } = await openRequestAs(VIEWER, id);
    assert.equal(await page.getByRole('button', { name: /Accept power of attorney/ }).count(), 0);
    await assertAccessible(page, 'an agent request, read only');
    assert.deepEqual(problems, []);
  });
});
