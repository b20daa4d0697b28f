// The public pages' kit (src/public-pages/): one layout, one stylesheet, one Content-Security-Policy for
// every page a data subject, an agent or a respondent opens, in the page's language.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { renderAppealReceived } from '../../src/privacy-center/appeal-page.ts';
import { renderHome, renderProblem } from '../../src/privacy-center/page.ts';
import { layout } from '../../src/public-pages/layout.ts';
import { renderRespondentEnding } from '../../src/tasks/respondent-page.ts';
import type { PrivacyCenterSettings } from '../../src/privacy-center-settings/schemas.ts';

const SOURCE = path.resolve(import.meta.dirname, '../../src');
const settings = {
  organization_name: 'Example & Co <Ltd>',
  title: 'Privacy "center"',
  actions: [],
} as unknown as PrivacyCenterSettings;

/** The page's frame: everything but its title and what lies inside <main>. */
const frameOf = (page: string) =>
  page.replace(/<main id="main">[\s\S]*<\/main>/, '<main/>').replace(/<title>.*<\/title>/, '');

describe('the public pages kit', () => {
  it('frames every page alike, escaping what it shows of the settings', () => {
    const home = renderHome(settings);
    const appeal = renderAppealReceived(settings, new Date(Date.UTC(2026, 0, 2)), {
      language: 'en',
      path: '/privacy-center/appeal/x',
    });
    const problem = renderProblem(settings, 404, 'No such <request>.');
    assert.equal(
      frameOf(home).replace(/href="[^"]*lang=[^"]*"/g, ''),
      frameOf(problem).replace(/href="[^"]*lang=[^"]*"/g, ''),
    );
    assert.equal(frameOf(appeal).includes('<p class="organization">Example &amp; Co &lt;Ltd&gt;</p>'), true);
    assert.match(home, /<link rel="stylesheet" href="\/privacy-center\/privacy-center.css">/);
    assert.match(home, /<footer><p><a href="[^"]*">Privacy &quot;center&quot;<\/a><\/p><\/footer>/);
    assert.match(problem, /No such &lt;request&gt;\./, 'a message is a value: escaped');
    const respondent = renderRespondentEnding('Example & Co <Ltd>', 'done');
    assert.match(respondent, /<p class="organization">Example &amp; Co &lt;Ltd&gt;<\/p>/);
    assert.doesNotMatch(respondent, /<footer>/, "a respondent's page has no link to the privacy center");
  });

  it("states the page's language and places its navigation under the organization", () => {
    const page = layout('t', { organization: 'Org', lang: 'fr', navigation: '<nav>n</nav>' }, '<p>b</p>');
    assert.match(page, /<html lang="fr">/);
    assert.match(page, /<p class="organization">Org<\/p>\n<nav>n<\/nav><\/header>/);
    assert.doesNotMatch(page, /<footer>/);
  });

  it('is the only place a public page is framed', async () => {
    const files = (await readdir(SOURCE, { recursive: true })).filter((file) => file.endsWith('.ts'));
    const framing: string[] = [];
    for (const file of files) {
      if (/<!doctype html>/i.test(await readFile(path.join(SOURCE, file), 'utf8'))) framing.push(file);
    }
    // Besides the kit: the downloaded access report, the mails, and the operators' sign-in pages (not public).
    assert.deepEqual(framing.sort(), [
      'access-delivery/report.ts',
      'privacy-requests/messages/templates.ts',
      'public-pages/layout.ts',
      'sso/routes.ts',
    ]);
  });
});
