// The public pages' kit (src/public-pages/): one layout, one stylesheet, one Content-Security-Policy for
// every page a data subject, an agent or a respondent opens, and one place the pages' words go through.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { renderAppealReceived } from '../../src/privacy-center/appeal-page.ts';
import { renderHome } from '../../src/privacy-center/page.ts';
import { layout, plainFrame, privacyCenterFrame, renderProblem } from '../../src/public-pages/layout.ts';
import { renderRespondentEnding } from '../../src/tasks/respondent-page.ts';
import type { PrivacyCenterSettings } from '../../src/privacy-center-settings/schemas.ts';

const SOURCE = path.resolve(import.meta.dirname, '../../src');
const settings = {
  organization_name: 'Example & Co <Ltd>',
  title: 'Privacy "center"',
  actions: [],
} as unknown as PrivacyCenterSettings;

/** The page's frame: everything but what lies inside <main>. */
const frameOf = (page: string) => page.replace(/<main id="main">[\s\S]*<\/main>/, '<main/>');

describe('the public pages kit', () => {
  it('frames every page alike, escaping what it shows of the settings', () => {
    const home = renderHome(settings);
    const appeal = renderAppealReceived(settings, new Date(Date.UTC(2026, 0, 2)));
    assert.equal(
      frameOf(home).replace(/<title>.*<\/title>/, ''),
      frameOf(appeal).replace(/<title>.*<\/title>/, ''),
    );
    assert.match(home, /<p class="organization">Example &amp; Co &lt;Ltd&gt;<\/p>/);
    assert.match(home, /<a href="\/privacy-center">Privacy &quot;center&quot;<\/a>/);
    assert.match(home, /<link rel="stylesheet" href="\/privacy-center\/privacy-center.css">/);
    const respondent = renderRespondentEnding('Example & Co <Ltd>', 'done');
    assert.match(respondent, /<p class="organization">Example &amp; Co &lt;Ltd&gt;<\/p>/);
    assert.doesNotMatch(respondent, /<footer>/, "a respondent's page has no link to the privacy center");
  });

  it("passes the kit's words through the frame's text function and states its language", () => {
    const shouted = { ...privacyCenterFrame(settings, (words) => words.toUpperCase(), 'de') };
    const page = renderProblem(shouted, 404, 'No such <request>.');
    assert.match(page, /<html lang="de">/);
    assert.match(page, /<title>NOT FOUND<\/title>/);
    assert.match(page, /<h1>NOT FOUND<\/h1>/);
    assert.match(
      page,
      /<p role="alert">No such &lt;request&gt;.<\/p>/,
      'a message is a value: escaped, not translated',
    );
    assert.match(layout('t', plainFrame('Org', undefined, 'fr'), ''), /<html lang="fr">/);
  });

  it('is the only place a public page is framed (mails and the downloaded report have their own)', async () => {
    const files = (await readdir(SOURCE, { recursive: true })).filter((file) => file.endsWith('.ts'));
    const framing: string[] = [];
    for (const file of files) {
      if (/<!doctype html>/i.test(await readFile(path.join(SOURCE, file), 'utf8'))) framing.push(file);
    }
    assert.deepEqual(framing.sort(), [
      'access-delivery/report.ts',
      'privacy-requests/messages/templates.ts',
      'public-pages/layout.ts',
    ]);
  });
});
