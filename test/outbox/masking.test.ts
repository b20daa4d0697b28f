// What GET /v1/outbox shows, over the real app on a real store (issue 22): verification codes and download
// links only to owners (role owner, or the root client), masked for every other reader; and a delivered
// message (a real smtp-server receives it) without its bodies, its recipient masked, its metadata kept,
// in the answer and in the stored row alike.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LANGUAGES } from '../../src/i18n/catalogue.ts';
import { maskBodySecrets } from '../../src/outbox/body-mask.ts';
import { openContent } from '../../src/outbox/content.ts';
import { maskEmail } from '../../src/outbox/recipient-mask.ts';
import { renderMessage } from '../../src/privacy-requests/messages/templates.ts';
import { scopedToken } from '../connections/support.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  codeIn,
  isKind,
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';

const PASSWORD = 'correct horse battery';

interface Message {
  id: string;
  kind: string;
  state: string;
  to: string;
  subject: string;
  text: string | null;
  html: string | null;
  body_purged: boolean;
  attempts: number;
  sent_at: string | null;
  created_at: string;
}

async function submit(service: TestService, email: string): Promise<string> {
  const answer = await service.call('POST', '/v1/privacy-center/privacy-request', {
    json: { policy_key: 'default_access_policy', identity: { email } },
  });
  assert.equal(answer.status, 200, answer.text);
  return answer.body.id as string;
}

describe('the outbox without a mail server: codes for owners only', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService(subjectSideConfig(undefined));
    await publishDefaults(service);
  });
  after(() => service.stop());

  async function signIn(username: string, roles: string[]): Promise<string> {
    const created = await service.call('POST', '/v1/user', {
      token: await service.rootToken(),
      json: { username, password: PASSWORD, roles },
    });
    assert.equal(created.status, 201, created.text);
    const login = await service.call('POST', '/v1/login', { json: { username, password: PASSWORD } });
    return login.body.token_data.access_token as string;
  }

  it('shows the code to the root client and an owner, and masks it for a viewer, an approver and a client', async () => {
    const id = await submit(service, 'masked.subject@example.com');
    const readers = {
      root: await service.rootToken(),
      owner: await signIn('omar.owner', ['owner']),
      viewer: await signIn('vic.viewer', ['viewer']),
      approver: await signIn('ann.approver', ['approver', 'contributor']),
      client: await scopedToken(service, ['privacy-request:read']),
    };
    const codes = new Map<string, string | undefined>();
    const bodies = new Map<string, string>();
    for (const [who, token] of Object.entries(readers)) {
      const answer = await service.call('GET', `/v1/outbox?privacy_request_id=${id}`, { token });
      assert.equal(answer.status, 200, answer.text);
      const message = (answer.body.items as Message[]).find((item) => item.kind === 'verification_code');
      assert.ok(message, answer.text);
      assert.equal(message.body_purged, false);
      assert.equal(message.subject.includes('verification code'), true);
      codes.set(who, /enter this code: (\S+)/.exec(message.text ?? '')?.[1]);
      bodies.set(who, `${message.text}${message.html}`);
      if (who === 'root' || who === 'owner') assert.match(message.html ?? '', /enter this code: \d{6}/);
    }
    const code = codes.get('root') ?? '';
    assert.match(code, /^\d{6}$/);
    // The request id in the status link may hold six digits in a row: look for the code itself.
    for (const who of ['viewer', 'approver', 'client'])
      assert.ok(!(bodies.get(who) ?? '').includes(code), `${who} sees the code`);
    assert.equal(codes.get('owner'), codes.get('root'));
    for (const who of ['viewer', 'approver', 'client']) assert.equal(codes.get(who), '***', who);
  });

  it("masks a download link's token in the text and the HTML", () => {
    const token = 'A'.repeat(20) + '_-' + 'b'.repeat(21);
    const message = renderMessage('completed', {
      language: 'en',
      organizationName: 'Example Ltd',
      actionTitle: 'Get a copy of my data',
      requestId: 'pri_1',
      statusUrl: 'http://127.0.0.1:8080/privacy-center/requests/pri_1',
      download: {
        url: `http://127.0.0.1:8080/privacy-center/download/${token}`,
        expiresAt: new Date('2030-01-02T03:04:05Z'),
      },
    });
    for (const body of [message.text, message.html]) {
      const masked = maskBodySecrets(body);
      assert.ok(body.includes(token));
      assert.ok(!masked.includes(token), masked);
      assert.match(masked, /\/privacy-center\/download\/\*\*\*/);
      assert.ok(masked.includes('/privacy-center/requests/pri_1'), 'other links stay');
    }
  });

  it('masks a verification code in every language the message is written in', () => {
    for (const language of LANGUAGES) {
      const message = renderMessage('verification_code', {
        language,
        organizationName: 'Example Ltd',
        actionTitle: 'Get a copy of my data',
        requestId: 'pri_1',
        statusUrl: 'http://127.0.0.1:8080/privacy-center/requests/pri_1',
        code: '731904',
      });
      for (const body of [message.text, message.html]) {
        assert.ok(body.includes('731904'), `${language}: the code is in the message`);
        assert.ok(!maskBodySecrets(body).includes('731904'), `${language}: ${maskBodySecrets(body)}`);
      }
    }
  });
});

describe('every acting link is masked for all but owners', () => {
  const token = 'C'.repeat(21) + '-_' + 'd'.repeat(20);
  const base = 'http://127.0.0.1:8080';
  const cases: [string, object, RegExp][] = [
    [
      'agent_confirmation',
      {
        agent: {
          name: 'Avery',
          confirmUrl: `${base}/privacy-center/confirm-agent/${token}`,
          expiresAt: new Date('2026-06-15T09:00:00Z'),
        },
      },
      /\/privacy-center\/confirm-agent\/\*\*\*/,
    ],
    [
      'denied',
      {
        reason: 'no',
        appeal: { url: `${base}/privacy-center/appeal/${token}`, until: new Date('2030-01-01T00:00:00Z') },
      },
      /\/privacy-center\/appeal\/\*\*\*/,
    ],
    [
      'respondent_invite',
      {
        task: {
          systemName: 'Vendor',
          instructions: '',
          url: `${base}/respond/${token}`,
          expiresAt: new Date('2026-06-15T09:00:00Z'),
        },
      },
      /\/respond\/\*\*\*/,
    ],
  ];
  for (const [kind, details, masked] of cases) {
    it(`masks the token of a ${kind} message's link in the text and the HTML`, () => {
      const message = renderMessage(
        kind as Parameters<typeof renderMessage>[0],
        {
          language: 'en',
          organizationName: 'Example Ltd',
          actionTitle: 'Get a copy of my data',
          requestId: 'pri_1',
          statusUrl: `${base}/privacy-center/requests/pri_1`,
          ...details,
        } as Parameters<typeof renderMessage>[1],
      );
      for (const body of [message.text, message.html]) {
        assert.ok(body.includes(token), 'the message as sent holds the token');
        const shown = maskBodySecrets(body);
        assert.ok(!shown.includes(token), shown);
        assert.match(shown, masked);
        if (body.includes('/privacy-center/requests/pri_1'))
          assert.ok(shown.includes('/privacy-center/requests/pri_1'), 'the status link stays');
      }
    });
  }
});

describe('the outbox after delivery: bodies purged, metadata kept', () => {
  let service: TestService;
  let mail: MailServer;
  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port), { worker: true });
    await publishDefaults(service);
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  it('keeps no body of a sent message, in the answer or the stored row, and masks its recipient', async () => {
    const email = `purged.${Date.now()}@example.com`;
    const id = await submit(service, email);
    const code = codeIn(await mail.waitFor(isKind('your verification code', email), 30_000));
    let sent: Message | undefined;
    for (let tries = 0; tries < 50 && !sent; tries += 1) {
      const answer = await service.call('GET', `/v1/outbox?privacy_request_id=${id}&state=sent`, {
        token: await service.rootToken(),
      });
      sent = (answer.body.items as Message[]).find((item) => item.kind === 'verification_code');
      if (!sent) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(sent, 'the message is recorded as sent');
    assert.equal(sent.body_purged, true);
    assert.equal(sent.text, null);
    assert.equal(sent.html, null);
    assert.equal(sent.to, maskEmail(email));
    assert.match(sent.subject, /verification code/);
    assert.equal(sent.attempts, 1);
    assert.ok(sent.sent_at && sent.created_at);

    const { rows } = await service.services.db.query<{ content_sealed: Uint8Array }>(
      'SELECT content_sealed FROM outbox_messages WHERE id = $1',
      [sent.id],
    );
    const stored = openContent(service.services.keyring, sent.id, rows[0]?.content_sealed as Uint8Array);
    assert.equal(stored.text, null);
    assert.equal(stored.html, null);
    assert.ok(!JSON.stringify(stored).includes(code), 'the code is gone from the store');
    assert.ok(!JSON.stringify(stored).includes(email), 'so is the address');
  });
});
