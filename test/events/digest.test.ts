// The daily digest (docs/events.md) with the clock passed in: nothing when nothing needs anyone; in the
// operators' local morning (LETHE_TIME_ZONE) one mail a day to each who asked and has an address, listing
// overdue requests, their open tasks and pending appeals by id and console link, never the subject's data;
// `lethe digest send` sends it now. And the CLI for subscriptions prints a new secret once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sendDigests } from '../../src/events/digest.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { engineConfig } from '../privacy-requests/support.ts';
import { signIn } from '../tasks/support.ts';

const CLI = path.resolve(import.meta.dirname, '../../src/cli/main.ts');
const DAY = 86_400_000;

describe('the daily digest', () => {
  let service: TestService;
  let root: string;
  const encryptionKey = randomBytes(32);

  before(async () => {
    service = await startTestService({
      ...engineConfig,
      encryptionKey,
      requireManualApproval: true,
      timeZone: 'Europe/Berlin',
    });
    root = await service.rootToken();
    for (const [username, email] of [
      ['dpo', 'dpo@company.example'],
      ['silent', 'silent@company.example'],
    ] as const) {
      await signIn(service, username, ['approver']);
      const changed = await service.call('PATCH', `/v1/user/${username}`, {
        token: root,
        json: username === 'dpo' ? { email, digest: true } : { email },
      });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.digest, username === 'dpo');
    }
  });
  after(() => service.stop());

  function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const env: Record<string, string | undefined> = {
      ...process.env,
      DATABASE_URL: service.config.databaseUrl,
      LETHE_ENCRYPTION_KEY: encryptionKey.toString('hex'),
      LETHE_DATA_DIR: service.config.dataDir,
      LETHE_LOG_LEVEL: 'silent',
      LETHE_ALLOW_INSECURE_WEBHOOKS: 'true',
      LETHE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    };
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  }

  const digests = async () => {
    const outbox = await service.call('GET', '/v1/outbox?size=200', { token: root });
    return outbox.body.items.filter((message: { kind: string }) => message.kind === 'event_digest') as {
      to: string;
      subject: string;
      text: string;
    }[];
  };

  it('sends nothing when nothing needs anyone', async () => {
    assert.deepEqual(
      await sendDigests(service.services, new Date('2026-06-15T09:00:00Z'), { now: true }),
      [],
    );
    const sent = await cli(['digest', 'send']);
    assert.equal(sent.code, 0, sent.stderr);
    assert.match(sent.stdout, /no digest sent/);
    assert.deepEqual(await digests(), []);
  });

  it('in the local morning, once a day, lists what needs the operator by id and link', async () => {
    const answer = await service.call('POST', '/v1/privacy-request', {
      token: root,
      json: [{ policy_key: 'default_access_policy', identity: { email: 'late.subject@example.com' } }],
    });
    const id = answer.body.succeeded[0].id as string;
    const { rows } = await service.services.db.query<{ due_at: Date }>(
      'SELECT due_at FROM privacy_requests WHERE id = $1',
      [id],
    );
    const due = rows[0]?.due_at as Date;
    // Two days after the due date, at 07:30 and 08:30 in Berlin (UTC+1 in winter, UTC+2 in summer): the
    // local hour is read through the time zone, so the test names the local times it means.
    const day = new Date(due.getTime() + 2 * DAY).toISOString().slice(0, 10);
    const berlinOffsetHours = (at: Date) =>
      Number(
        new Intl.DateTimeFormat('en', {
          timeZone: 'Europe/Berlin',
          hour: '2-digit',
          hourCycle: 'h23',
        }).format(at),
      ) - at.getUTCHours();
    const localTime = (date: string, hour: number, minute: number) => {
      const guess = new Date(
        `${date}T${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00Z`,
      );
      return new Date(guess.getTime() - (((berlinOffsetHours(guess) % 24) + 24) % 24) * 3_600_000);
    };
    assert.deepEqual(
      await sendDigests(service.services, localTime(day, 7, 30)),
      [],
      'not before the morning',
    );
    assert.deepEqual(await sendDigests(service.services, localTime(day, 8, 30)), ['dpo']);
    assert.deepEqual(await sendDigests(service.services, localTime(day, 15, 0)), [], 'once a day');
    const [mail] = await digests();
    assert.equal(mail?.to, 'dpo@company.example');
    assert.equal(mail?.subject, `Lethe: what needs you on ${day}`);
    assert.match(
      mail?.text ?? '',
      new RegExp(
        `Overdue requests:\\n- ${id} \\(due \\d{4}-\\d\\d-\\d\\d, pending\\) http://\\S+/console/requests/${id}`,
      ),
    );
    assert.ok(!mail?.text.includes('late.subject'), 'no subject data');
    const nextDay = new Date(Date.parse(`${day}T12:00:00Z`) + DAY).toISOString().slice(0, 10);
    assert.deepEqual(
      await sendDigests(service.services, localTime(nextDay, 9, 0)),
      ['dpo'],
      'the next day again',
    );

    // `lethe digest send` reads the real clock: the request's due date passes (as if the days went by).
    await service.services.db.query(
      `UPDATE privacy_requests SET due_at = now() - interval '1 day' WHERE id = $1`,
      [id],
    );
    const now = await cli(['digest', 'send', '--user', 'dpo']);
    assert.equal(now.code, 0, now.stderr);
    assert.match(now.stdout, /digest queued in the outbox for dpo/);
    assert.equal((await digests()).length, 3);
    assert.ok(
      (await digests()).every((message) => message.to === 'dpo@company.example'),
      'silent did not ask',
    );
  });

  it('manages subscriptions from the command line, printing a new secret once', async () => {
    const put = await cli([
      'event-subscription',
      'put',
      'ops',
      '--url',
      'https://hooks.example.com/services/T/B/secret-path',
      '--event',
      'privacy_request.received',
      '--event',
      'task.overdue',
      '--format',
      'slack',
    ]);
    assert.equal(put.code, 0, put.stderr);
    assert.match(put.stdout, /created ops; its signing secret \(shown this once\): whsec_[A-Za-z0-9+/]+=*/);
    const list = await cli(['event-subscription', 'list']);
    assert.match(list.stdout, /ops\s+slack\s+true\s+https:\/\/hooks\.example\.com\/\*\*\*/);
    assert.ok(!list.stdout.includes('secret-path'));
    const refused = await cli([
      'event-subscription',
      'put',
      'bad',
      '--url',
      'https://hooks.example.com/x',
      '--event',
      'nope',
      '--format',
      'slack',
    ]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /unknown event "nope"/);
    const rotated = await cli(['event-subscription', 'rotate-secret', 'ops']);
    assert.match(rotated.stdout, /new signing secret of ops \(shown this once\): whsec_/);
    assert.equal((await cli(['event-subscription', 'delete', 'ops'])).code, 0);
  });
});
