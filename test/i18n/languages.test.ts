// The language a subject reads, over HTTP: the page's choice (?lang=, Accept-Language, the default; a
// hostile value ignored and never echoed), the request's memory of it (every later message in it, whoever
// triggers it), and the operators' translations (422 naming an unknown language or text; a missing one reads
// the text as written).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  DEFAULT_ACTIONS,
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';

const TRANSLATED = {
  ...DEFAULT_ACTIONS,
  translations: { de: { title: 'Datenschutzcenter von Example' } },
  actions: DEFAULT_ACTIONS.actions.map((action, index) =>
    index === 0 ? { ...action, translations: { de: { title: 'Eine Kopie meiner Daten' } } } : action,
  ),
};

describe('languages over HTTP', () => {
  let mail: MailServer;
  let service: TestService;
  let root: string;
  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port, { requireManualApproval: true }), {
      worker: true,
    });
    root = await service.rootToken();
    await publishDefaults(service, TRANSLATED);
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  const page = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${service.url}${path}`, { headers });
    return { status: response.status, html: await response.text() };
  };

  it('chooses ?lang=, then Accept-Language, then the default, and reads the operator’s translation', async () => {
    const german = await page('/privacy-center?lang=de', { 'accept-language': 'fr' });
    assert.equal(german.status, 200);
    assert.match(german.html, /<html lang="de">/);
    assert.match(german.html, /<h1>Datenschutzcenter von Example<\/h1>/);
    assert.match(german.html, /<h2 id="action-0">Eine Kopie meiner Daten<\/h2>/);
    assert.match(german.html, /<h2 id="action-1">Erase my data<\/h2>/, 'no translation: the text as written');
    assert.match(german.html, /action="\/privacy-center\/requests\?lang=de"/);

    const french = await page('/privacy-center', { 'accept-language': 'fr-CH, fr;q=0.9, en;q=0.5' });
    assert.match(french.html, /<html lang="fr">/);
    assert.match(french.html, /<h1>Example privacy center<\/h1>/, 'no French title: the title as written');
    assert.match(french.html, /Envoyer cette demande/);

    const plain = await page('/privacy-center', { 'accept-language': 'ja' });
    assert.match(plain.html, /<html lang="en">/);
  });

  it('ignores a hostile lang: the default language, 200, never reflected', async () => {
    for (const hostile of [
      'x'.repeat(5000),
      '../../../etc/passwd',
      '<script>alert(1)</script>',
      '"><img src=x onerror=alert(1)>',
      'de\r\nSet-Cookie: a=b',
    ]) {
      const answer = await page(`/privacy-center?lang=${encodeURIComponent(hostile)}`);
      assert.equal(answer.status, 200, hostile);
      assert.match(answer.html, /<html lang="en">/, hostile);
      assert.ok(!answer.html.includes(hostile), `${hostile.slice(0, 20)} is reflected`);
      assert.ok(!answer.html.includes(encodeURIComponent(hostile)), `${hostile.slice(0, 20)} is reflected`);
    }
  });

  it('refuses translations for an unknown language or text with 422 naming it, and changes nothing', async () => {
    const before = (await service.call('GET', '/v1/privacy-center', { token: root })).body;
    const put = (json: unknown) => service.call('PUT', '/v1/privacy-center', { token: root, json });
    const unknownLanguage = await put({ ...TRANSLATED, translations: { xx: { title: 'X' } } });
    assert.equal(unknownLanguage.status, 422, unknownLanguage.text);
    assert.match(unknownLanguage.body.detail, /"xx" is not a language/);
    const unknownText = await put({
      ...TRANSLATED,
      actions: [{ ...TRANSLATED.actions[1], translations: { fr: { subtitle: 'Effacer' } } }],
    });
    assert.equal(unknownText.status, 422, unknownText.text);
    assert.match(unknownText.body.detail, /default_erasure_policy.*"subtitle" is not a translatable text/);
    assert.deepEqual((await service.call('GET', '/v1/privacy-center', { token: root })).body, before);
  });

  it('remembers the language of the form: every later message is in it, whoever triggers it', async () => {
    const email = 'greta@example.de';
    const form = new URLSearchParams({ policy_key: 'default_access_policy', email });
    const posted = await fetch(`${service.url}/privacy-center/requests?lang=de`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
    });
    assert.equal(posted.status, 303);
    const location = posted.headers.get('location') ?? '';
    assert.match(location, /^\/privacy-center\/requests\/pri_[\w-]+\?lang=de$/);
    const id = /pri_[\w-]+/.exec(location)?.[0] ?? '';
    const stored = await service.services.db.query<{ language: string }>(
      'SELECT language FROM privacy_requests WHERE id = $1',
      [id],
    );
    assert.equal(stored.rows[0]?.language, 'de');

    const codeMail = await mail.waitFor((message) => message.to.includes(email));
    assert.match(codeMail.text, /<html lang="de">/);
    const code = /geben Sie diesen Code ein: (\d{6})/.exec(codeMail.text)?.[1];
    assert.ok(code, codeMail.text);
    assert.ok(codeMail.text.includes(`/privacy-center/requests/${id}?lang=de`), 'the link opens in German');

    // The code is typed on a page the browser asks in English: the request's language stays German.
    const verified = await fetch(`${service.url}/privacy-center/requests/${id}/verify`, {
      method: 'POST',
      headers: { 'accept-language': 'en' },
      body: new URLSearchParams({ code }),
      redirect: 'manual',
    });
    assert.equal(verified.status, 303);
    const received = await mail.waitFor(
      (message) => message.to.includes(email) && message.text.includes('Wir haben Ihre Anfrage erhalten'),
    );
    assert.match(received.text, /Eine Kopie meiner Daten/, "the operator's German title");

    // An operator in English denies it: the subject reads the denial in German.
    const denied = await service.call('PATCH', '/v1/privacy-request/administrate/deny', {
      token: root,
      json: { request_ids: [id], reason: 'Kein Kundenkonto.' },
    });
    assert.equal(denied.status, 200, denied.text);
    const denial = await mail.waitFor(
      (message) => message.to.includes(email) && message.text.includes('Wir haben Ihre Anfrage abgelehnt'),
    );
    assert.match(denial.text, /Kein Kundenkonto\./);
  });
});

describe('LETHE_DEFAULT_LANGUAGE', () => {
  it('takes a language with a catalogue, English when unset, and refuses any other naming the variable', () => {
    assert.equal(loadConfig({}).defaultLanguage, 'en');
    assert.equal(loadConfig({ LETHE_DEFAULT_LANGUAGE: 'sv' }).defaultLanguage, 'sv');
    assert.throws(
      () => loadConfig({ LETHE_DEFAULT_LANGUAGE: 'xx' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /LETHE_DEFAULT_LANGUAGE must be one of en, de/);
        return true;
      },
    );
  });
});
