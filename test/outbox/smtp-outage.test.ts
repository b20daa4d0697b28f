// The outbox while the mail server is down for 10 seconds: every attempt fails, is logged on its request
// with the recipient masked and is retried with backoff; nothing is lost and nothing is sent twice once the
// server (a real smtp-server, started late on the same port) is back.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { retryDelaySeconds } from '../../src/outbox/delivery.ts';
import { maskEmail } from '../../src/outbox/recipient-mask.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  codeIn,
  isKind,
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the outbox while SMTP is down', () => {
  let port: number;
  let service: TestService;
  let mail: MailServer | undefined;
  before(async () => {
    port = await freePort();
    service = await startTestService(subjectSideConfig(port), { worker: true, captureLogs: true });
    await publishDefaults(service);
  });
  after(async () => {
    await service.stop();
    await mail?.close();
  });

  it('keeps every message, retries with backoff, and delivers each once when the server returns', async () => {
    const emails = [1, 2, 3].map((n) => `outage${n}.${Date.now()}@example.com`);
    const ids: string[] = [];
    for (const email of emails) {
      const answer = await service.call('POST', '/v1/privacy-center/privacy-request', {
        json: { policy_key: 'default_access_policy', identity: { email } },
      });
      assert.equal(answer.status, 200, answer.text);
      ids.push(answer.body.id);
    }
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 10_000));

    const token = await service.rootToken();
    const pending = await service.call('GET', '/v1/outbox?state=pending', { token });
    assert.equal(pending.body.total, 3, pending.text);
    for (const message of pending.body.items) {
      assert.ok(message.attempts >= 2, `retried: ${message.attempts} attempts`);
      assert.match(message.last_error, /delivery failed/);
    }
    const log = await service.call('GET', `/v1/privacy-request/${ids[0]}/log`, { token });
    const failures = log.body.filter((entry: { message: string }) =>
      /not sent; it will be retried/.test(entry.message ?? ''),
    );
    assert.ok(failures.length >= 2, log.text);
    assert.ok(
      failures.every((entry: { message: string }) => entry.message.includes(maskEmail(emails[0] as string))),
    );
    assert.ok(!log.text.includes(emails[0] as string));

    mail = await startMailServer(port);
    for (const email of emails) codeIn(await mail.waitFor(isKind('your verification code', email), 30_000));
    // One more poll interval: nothing goes out twice.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal(mail.mails.length, 3, 'each message once');
    const sent = await service.call('GET', '/v1/outbox?state=sent', { token });
    assert.equal(sent.body.total, 3);
    assert.ok(Date.now() - started >= 10_000);
    const lines = service.logLines.join('\n');
    for (const email of emails) assert.ok(!lines.includes(email), 'no email in the process log');
  });

  it('waits twice as long after each failure, up to the bound', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 10, 40].map((attempts) => retryDelaySeconds(attempts, 300)),
      [1, 2, 4, 8, 16, 300, 300],
    );
  });
});
