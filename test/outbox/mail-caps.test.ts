// Every mail to a subject's address counts against its cap of 5 an hour, whoever caused it (issue 34,
// item 5; docs/decisions.md#whom-lethe-acts-for): an operator's mails (receipts of requests they made, a
// note to the subject, a denial, a completion) take slots as the public's codes do. At the cap a mail the law
// requires is held in the outbox until the hour has room, never dropped, and sent then; the public is
// refused with a 429 while the hour is full, held mails included.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { deliverDueMessages } from '../../src/outbox/delivery.ts';
import { recipientIndex } from '../../src/outbox/recipient-caps.ts';
import { smtpTransport } from '../../src/mail/transport.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { waitForStatus } from '../privacy-requests/support.ts';
import {
  isKind,
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';

describe("every mail to a subject's address counts against its caps", () => {
  let mail: MailServer;
  let service: TestService;
  let token: string;
  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port, { requireManualApproval: true }), {
      worker: true,
    });
    token = await service.rootToken();
    await publishDefaults(service);
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  it('holds operator-caused mails at the cap, refuses the public meanwhile, and sends them later', async () => {
    const email = `capped.${randomUUID()}@example.com`;
    const created = await service.call('POST', '/v1/privacy-request', {
      token,
      json: Array.from({ length: 5 }, () => ({
        policy_key: 'default_access_policy',
        identity: { email },
      })),
    });
    assert.equal(created.status, 200, created.text);
    const ids = (created.body.succeeded as { id: string }[]).map((item) => item.id);
    assert.equal(ids.length, 5);
    // Five receipts fill the hour; they go at once.
    for (let tries = 0; mail.mailsTo(email).length < 5 && tries < 300; tries += 1)
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(mail.mailsTo(email).length, 5, 'the five receipts were sent');

    const note = await service.call('POST', `/v1/privacy-request/${ids[0]}/note`, {
      token,
      json: { text: 'We also looked in our paper archive.', visibility: 'subject' },
    });
    assert.equal(note.status, 201, note.text);
    const denied = await service.call('PATCH', '/v1/privacy-request/administrate/deny', {
      token,
      json: { request_ids: [ids[1]], reason: 'We hold no account under this address.' },
    });
    assert.equal(denied.status, 200, denied.text);
    assert.deepEqual(denied.body.failed, [], denied.text);
    // A completion too (the statement that completes an access request stores its message).
    const approved = await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
      token,
      json: { request_ids: [ids[2]] },
    });
    assert.equal(approved.status, 200, approved.text);
    await waitForStatus(service, ids[2] as string, 'complete');

    const held = async () =>
      (
        await service.services.db.query<{
          kind: string;
          state: string;
          next_attempt_at: Date;
          held_seconds: number;
        }>(
          `SELECT kind, state, next_attempt_at,
                  extract(epoch FROM next_attempt_at - created_at)::int AS held_seconds
             FROM outbox_messages
            WHERE privacy_request_id = ANY($1::text[]) AND kind IN ('subject_note', 'denied', 'completed')
            ORDER BY next_attempt_at`,
          [ids],
        )
      ).rows;
    const waiting = await held();
    assert.deepEqual(
      waiting.map((row) => [row.kind, row.state]),
      [
        ['subject_note', 'pending'],
        ['denied', 'pending'],
        ['completed', 'pending'],
      ],
      'kept, not dropped',
    );
    for (const row of waiting) {
      assert.ok(row.held_seconds > 3_500, `${row.kind} held until the hour has room (${row.held_seconds} s)`);
      assert.ok(row.held_seconds <= 3_601, `${row.kind} held no longer than the hour`);
    }

    // No hour of the address ever holds more than 5 mails, the held ones at their slots included.
    const { rows: hours } = await service.services.db.query<{ slots: number; fullest: number }>(
      `SELECT count(*)::int AS slots,
              max((SELECT count(*) FROM verification_code_mails o
                    WHERE o.recipient_index = m.recipient_index
                      AND o.sent_at > m.sent_at - interval '1 hour' AND o.sent_at <= m.sent_at))::int AS fullest
         FROM verification_code_mails m WHERE m.recipient_index = $1`,
      [recipientIndex(service.services.keyring, email)],
    );
    assert.deepEqual(hours[0], { slots: 8, fullest: 5 });

    // The public is refused while the hour is full, and sends nothing.
    const outboxBefore = await service.services.db.query('SELECT id FROM outbox_messages');
    const publicAsk = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: 'default_access_policy', identity: { email } },
    });
    assert.equal(publicAsk.status, 429, publicAsk.text);
    assert.match(publicAsk.body.detail, /Too many messages were sent to this address in the last hour/);
    assert.equal(
      (await service.services.db.query('SELECT id FROM outbox_messages')).rowCount,
      outboxBefore.rowCount,
    );
    assert.equal(mail.mailsTo(email).length, 5, 'nothing beyond the cap was sent');

    // When the hour has room, the delivery sends them (a pass at the latest slot's time sends all three).
    const transport = smtpTransport(service.services.config);
    assert.ok(transport);
    const at = (waiting[2] as { next_attempt_at: Date }).next_attempt_at;
    try {
      const pass = await deliverDueMessages(service.services, transport, async () => undefined, at);
      assert.equal(pass.failed, 0);
      assert.ok(pass.sent >= 3, `sent ${pass.sent}`);
    } finally {
      transport.close();
    }
    await mail.waitFor(isKind('We also looked in our paper archive.', email));
    const denial = await mail.waitFor(isKind('We hold no account under this address.', email));
    assert.ok(denial.to.includes(email));
    assert.deepEqual(
      (await held()).map((row) => row.state),
      ['sent', 'sent', 'sent'],
    );
  });
});
