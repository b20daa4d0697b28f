// The messages' templates and the recipient mask: every value in HTML escaped, the subject one line, the
// organisation's name in every message, the code and link where they belong; masks that hide the address.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maskEmail } from '../../../src/outbox/recipient-mask.ts';
import { renderMessage } from '../../../src/privacy-requests/messages/templates.ts';
import { renderHome } from '../../../src/privacy-center/page.ts';

const hostile = '<script>alert("x")</script> & Co\r\nBcc: someone@example.com';
const base = {
  language: 'en',
  organizationName: hostile,
  actionTitle: '<img src=x onerror=alert(1)>',
  requestId: 'pri_1',
  statusUrl: 'http://127.0.0.1:8080/privacy-center/requests/pri_1',
};

describe('message templates', () => {
  it('escape every value in HTML and keep the subject on one line', () => {
    for (const kind of ['verification_code', 'received', 'denied', 'completed', 'canceled'] as const) {
      const message = renderMessage(kind, { ...base, code: '123456', reason: '<b>no</b>' });
      assert.ok(!/<script|<img|<b>/i.test(message.html), `${kind}: ${message.html}`);
      assert.ok(message.html.includes('&lt;script&gt;'), `${kind} names the organisation`);
      assert.ok(message.text.includes('<script>alert("x")</script> & Co'), `${kind}: the text is plain`);
      assert.ok(!/[\r\n]/.test(message.subject), `${kind}: one-line subject`);
    }
  });

  it('carry the code, the reason, the download link and the erasure counts', () => {
    assert.match(
      renderMessage('verification_code', { ...base, code: '042424' }).text,
      /enter this code: 042424/,
    );
    assert.match(
      renderMessage('denied', { ...base, reason: 'not a customer' }).text,
      /Reason: not a customer/,
    );
    const access = renderMessage('completed', {
      ...base,
      download: { url: 'http://x/privacy-center/download/abc', expiresAt: new Date('2030-01-02T03:04:05Z') },
    });
    assert.match(access.text, /http:\/\/x\/privacy-center\/download\/abc/);
    assert.match(access.text, /until January 2, 2030 at 3:04 AM UTC/);
    assert.match(access.html, /<a href="http:\/\/x\/privacy-center\/download\/abc\?lang=en">/);
    const erasure = renderMessage('completed', {
      ...base,
      erased: [
        {
          datastore: 'crm',
          entities: 3,
          attributesMasked: 5,
          attributesDeleted: 1,
          filesDeleted: 1,
          entitiesForgotten: 0,
        },
      ],
    });
    assert.match(
      erasure.text,
      /- crm: 3 records; 5 values masked, 1 value deleted, 1 file deleted, 0 records removed/,
    );
    assert.match(renderMessage('completed', { ...base, erased: [] }).text, /held no personal data/);
  });

  it('the page escapes what operators type', () => {
    const html = renderHome({
      title: hostile,
      organization_name: hostile,
      actions: [
        {
          policy_key: '"><script>',
          title: '<script>t</script>',
          description: '<script>d</script>',
          identity_inputs: { email: 'required' },
        },
      ],
    });
    assert.ok(!/<script/i.test(html), html);
  });
});

describe("a respondent's invite", () => {
  it("reads the system's instructions in the message's language, else as written", () => {
    const task = {
      systemName: 'Paper archive',
      instructions: 'Look in the cabinet.',
      translations: { de: { instructions: 'Schauen Sie in den Schrank.' } },
      url: 'http://127.0.0.1:8080/respond/abc',
      expiresAt: new Date('2030-01-02T03:04:05Z'),
    };
    const german = renderMessage('respondent_invite', { ...base, language: 'de', task }).text;
    assert.ok(german.includes('Schauen Sie in den Schrank.'), german);
    assert.ok(!german.includes('Look in the cabinet.'), german);
    const french = renderMessage('respondent_invite', { ...base, language: 'fr', task }).text;
    assert.ok(french.includes('Look in the cabinet.'), french);
  });
});

describe('the recipient mask', () => {
  it('keeps first letters and the top-level domain only', () => {
    assert.equal(maskEmail('jane.doe@example.com'), 'j***@e***.com');
    assert.equal(maskEmail('A@B.CO.UK'), 'A***@B***.UK');
    assert.equal(maskEmail('nodomain'), '***');
  });
});
