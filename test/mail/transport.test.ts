// The one mail transport (src/mail/transport.ts) against a real SMTP server: a message with an attachment
// arrives as sent; without LETHE_SMTP_URL there is no transport; a failure is named by its codes only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mailFailureCodes, smtpTransport } from '../../src/mail/transport.ts';
import { type MailServer, startMailServer } from '../helpers/subject-side.ts';

describe('the mail transport', () => {
  let server: MailServer;
  before(async () => {
    server = await startMailServer();
  });
  after(() => server.close());

  it('delivers a message with its attachment over SMTP', async () => {
    const transport = smtpTransport({ smtpUrl: `smtp://127.0.0.1:${server.port}` });
    assert.ok(transport);
    await transport.send({
      from: 'privacy@example.com',
      to: 'ada@example.com',
      subject: 'Your subject access report',
      text: 'Attached.',
      attachments: [{ filename: 'report.json', contentType: 'application/json', content: '{"a":1}' }],
    });
    transport.close();
    const mail = await server.waitFor((message) => message.to.includes('ada@example.com'));
    assert.match(mail.text, /Subject: Your subject access report/);
    assert.match(mail.text, /filename=report\.json/);
  });

  it('is absent without a mail server, and names a failure by its codes only', async () => {
    assert.equal(smtpTransport({ smtpUrl: undefined }), undefined);
    const refused = smtpTransport({ smtpUrl: 'smtp://127.0.0.1:9' });
    assert.ok(refused);
    const failure = await refused
      .send({ from: 'a@example.com', to: 'ada@example.com', subject: 's', text: 't' })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    refused.close();
    assert.ok(failure, 'sending to a closed port fails');
    const codes = mailFailureCodes(failure);
    assert.ok(codes.length > 0);
    assert.ok(codes.every((code) => !code.includes('ada@example.com')));
  });
});
