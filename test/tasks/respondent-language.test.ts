// A manual system's instructions in the request's language, over real HTTP and a real SMTP server: a
// request made on the German privacy center gets a task whose respondent's page shows the system's German
// instructions (marked lang="de" on a page the respondent's browser asks in English), while the invite mail,
// written in the organisation's language like every message to its own people, reads them as written; a
// request in a language the system has no instructions in (French), and one made through the API (the
// default language), read the instructions as written, never an empty text.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import { submit, waitForStatus } from '../privacy-requests/support.ts';
import { putManualSystem, tasksOf } from './support.ts';

const VENDOR = 'answers@vendor.example';
const WRITTEN = 'Look up the orders by email & give the customer number.';
const GERMAN = 'Suchen Sie die Bestellungen per E-Mail & geben Sie die Kundennummer an.';

function linkIn(text: string): string {
  const match = /(http:\/\/[^\s"<]+\/respond\/[A-Za-z0-9_-]{43})/.exec(text);
  assert.ok(match, 'the mail holds a respondent link');
  return match[1] as string;
}

describe('respondent instructions in the request language', () => {
  let mail: MailServer;
  let service: TestService;
  let token: string;

  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port), { worker: true });
    token = await service.rootToken();
    await publishDefaults(service);
    await putManualSystem(service, 'vendor', {
      name: 'Fulfilment vendor',
      respondent_email: VENDOR,
      instructions: WRITTEN,
      translations: { de: { instructions: GERMAN } },
    });
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  /** A request made and verified on the privacy center in `language`: its id once it awaits its task. */
  async function requestIn(language: string, email: string): Promise<string> {
    const posted = await fetch(`${service.url}/privacy-center/requests?lang=${language}`, {
      method: 'POST',
      body: new URLSearchParams({ policy_key: 'default_access_policy', email }),
      redirect: 'manual',
    });
    assert.equal(posted.status, 303);
    const id = /pri_[\w-]+/.exec(posted.headers.get('location') ?? '')?.[0] ?? '';
    const codeMail = await mail.waitFor((message) => message.to.includes(email));
    const code = /:\s*(\d{6})\s*$/m.exec(codeMail.text)?.[1];
    assert.ok(code, codeMail.text);
    const verified = await fetch(`${service.url}/privacy-center/requests/${id}/verify`, {
      method: 'POST',
      body: new URLSearchParams({ code }),
      redirect: 'manual',
    });
    assert.equal(verified.status, 303);
    await waitForStatus(service, id, 'requires_input');
    return id;
  }

  /** Invites the vendor to the request's task: the invite mail's text and the page its link opens. */
  async function invite(id: string): Promise<{ mailText: string; page: string }> {
    const task = (await tasksOf(service, id)).find((candidate) => candidate.system === 'vendor');
    const sent = mail.mailsTo(VENDOR).length;
    const invited = await service.call('POST', `/v1/task/${task.id}/invite`, { token });
    assert.equal(invited.status, 200, invited.text);
    const invitation = await mail.waitFor(
      (candidate) => candidate.to.includes(VENDOR) && mail.mailsTo(VENDOR).indexOf(candidate) >= sent,
    );
    const page = await fetch(linkIn(invitation.text), { headers: { 'accept-language': 'en' } });
    assert.equal(page.status, 200);
    return { mailText: invitation.text, page: await page.text() };
  }

  it("shows the German instructions for a German request on the page; the mail is the organisation's", async () => {
    const { mailText, page } = await invite(await requestIn('de', 'greta@example.de'));
    assert.ok(mailText.includes(WRITTEN), mailText);
    assert.ok(!mailText.includes(GERMAN));
    assert.ok(page.includes(`<p lang="de">${GERMAN.replace('&', '&amp;')}</p>`), page);
    assert.ok(!page.includes(WRITTEN.replace('&', '&amp;')));
    assert.match(page, /<html lang="en"/, "the page's own words follow the respondent's browser");
  });

  it('reads the instructions as written for a language without them, and for an API request', async () => {
    const french = await invite(await requestIn('fr', 'francois@example.fr'));
    assert.ok(french.mailText.includes(WRITTEN), french.mailText);
    assert.ok(french.page.includes(`<p lang="en">${WRITTEN.replace('&', '&amp;')}</p>`), french.page);
    assert.ok(!french.page.includes(GERMAN.replace('&', '&amp;')));

    const created = await submit(service, {
      policy_key: 'default_access_policy',
      identity: { email: 'api@example.com' },
    });
    await waitForStatus(service, created.id, 'requires_input');
    const plain = await invite(created.id);
    assert.ok(plain.mailText.includes(WRITTEN), plain.mailText);
    assert.ok(plain.page.includes(WRITTEN.replace('&', '&amp;')), plain.page);
  });
});
