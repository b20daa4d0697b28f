// The privacy center in German, in a real Chromium whose browser asks for German: the page, the language
// switcher (plain links), the form, a wrong code and the right one from the German mail, the status page,
// and the completion mail's link downloading a ZIP whose report.html and data.csv are in German. Every
// page passes axe-core.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { accessibilityViolations, launchBrowser, watchForPageProblems } from '../console/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { openStores, seedSubject, type Stores } from '../privacy-requests/rule-support.ts';
import {
  DEFAULT_ACTIONS,
  downloadLinkIn,
  type MailServer,
  publishDefaults,
  readZip,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';

describe('the German privacy center in Chromium', () => {
  let mail: MailServer;
  let service: TestService;
  let browser: Browser;
  let stores: Stores;
  const problems: string[] = [];

  before(async () => {
    mail = await startMailServer();
    const [started, launched] = await Promise.allSettled([
      startTestService(subjectSideConfig(mail.port), { worker: true }),
      launchBrowser(),
    ]);
    if (started.status === 'fulfilled') service = started.value;
    if (launched.status === 'fulfilled') browser = launched.value;
    if (started.status === 'rejected') throw started.reason;
    if (launched.status === 'rejected') throw launched.reason;
    stores = await openStores(service);
    await publishDefaults(service, {
      ...DEFAULT_ACTIONS,
      translations: { de: { title: 'Datenschutzcenter' } },
      actions: DEFAULT_ACTIONS.actions.map((action, index) =>
        index === 0
          ? {
              ...action,
              translations: {
                de: {
                  title: 'Eine Kopie meiner Daten',
                  description:
                    'Wir senden Ihnen einen Link, um alles herunterzuladen, was wir über Sie haben.',
                },
              },
            }
          : action,
      ),
    });
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
    await mail?.close();
  });

  const assertAccessible = async (page: Page, where: string) =>
    assert.deepEqual(await accessibilityViolations(page), [], `axe-core on ${where}`);

  test('submit, verify and download, all in German', async () => {
    const subject = await seedSubject(stores, 'greta');
    const context = await browser.newContext({ locale: 'de-DE', acceptDownloads: true });
    const page = await context.newPage();
    watchForPageProblems(page, problems);

    await page.goto(`${service.url}/privacy-center`);
    assert.equal(await page.getAttribute('html', 'lang'), 'de');
    await page.getByRole('heading', { level: 1, name: 'Datenschutzcenter' }).waitFor();
    assert.equal(await page.locator('script').count(), 0, 'no script on the page');
    await assertAccessible(page, 'the German privacy center');

    // The switcher is links: to French and back, each page in its language.
    const languages = page.getByRole('navigation', { name: 'Sprache' });
    await languages.getByRole('link', { name: 'Français' }).click();
    await page.getByRole('navigation', { name: 'Langue' }).waitFor();
    assert.equal(await page.getAttribute('html', 'lang'), 'fr');
    await page.getByRole('navigation', { name: 'Langue' }).getByRole('link', { name: 'Deutsch' }).click();
    await page.getByRole('navigation', { name: 'Sprache' }).waitFor();

    const section = page.getByRole('region', { name: 'Eine Kopie meiner Daten' });
    await section.getByLabel('E-Mail-Adresse', { exact: true }).fill(subject.email);
    await section.getByRole('button', { name: 'Anfrage senden' }).click();
    await page.getByRole('heading', { level: 1, name: 'Ihre Anfrage' }).waitFor();
    await page.getByText('Wir haben Ihre Anfrage erhalten.').waitFor();
    assert.match(page.url(), /\?lang=de$/);
    await assertAccessible(page, 'the German status page');

    await page.getByLabel('Bestätigungscode').fill('000000');
    await page.getByRole('button', { name: 'Bestätigen' }).click();
    const problem = page.getByRole('alert');
    await problem.waitFor();
    assert.match((await problem.textContent()) ?? '', /^Falscher Code; noch \d Versuche?\.$/);
    await assertAccessible(page, 'the German status page with a wrong code');

    const codeMail = await mail.waitFor(
      (message) =>
        message.to.includes(subject.email.toLowerCase()) &&
        message.text.includes('geben Sie diesen Code ein'),
    );
    const code = /geben Sie diesen Code ein: (\d{6})/.exec(codeMail.text)?.[1] ?? '';
    await page.getByLabel('Bestätigungscode').fill(code);
    await page.getByRole('button', { name: 'Bestätigen' }).click();
    await page.locator('#stage').waitFor();

    const done = await mail.waitFor(
      (message) =>
        message.to.includes(subject.email.toLowerCase()) &&
        message.text.includes('Ihre Anfrage ist abgeschlossen'),
    );
    assert.match(done.text, /<html lang="de">/);
    await page.reload();
    await page.getByText('Ihre Anfrage ist erledigt.', { exact: false }).waitFor();
    await assertAccessible(page, 'the German status page of a finished request');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.goto(downloadLinkIn(done)).catch(() => undefined),
    ]);
    const entries = await readZip(await readFile((await download.path()) as string));
    const report = (entries.get('report.html') as Buffer).toString('utf8');
    assert.match(report, /<html lang="de">/);
    assert.match(report, /<h1>Ihre personenbezogenen Daten bei Example Ltd<\/h1>/);
    assert.match(report, /Wie wir Ihre Daten verwenden/);
    const csv = (entries.get('data.csv') as Buffer).toString('utf8');
    assert.equal(csv.split('\r\n')[0], '"Datenspeicher","Entitätstyp","Entitäts-ID","Attribut","Wert"');

    // A link that leads nowhere says so in German, accessibly.
    const gone = await page.goto(`${service.url}/privacy-center/download/${'x'.repeat(43)}`);
    assert.equal(gone?.status(), 404);
    await page.getByRole('heading', { level: 1, name: 'Nicht gefunden' }).waitFor();
    await assertAccessible(page, 'the German problem page');
    await context.close();
    assert.deepEqual(problems, []);
  });
});
