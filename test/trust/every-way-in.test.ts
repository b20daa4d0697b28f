// One walk over every way in (DECISIONS.md, "Trust by construction"; issue 34). A stranger gives their own
// addresses and a victim's phone number through each way a privacy request comes in, and asks for
// everything: a copy of the data, an erasure an operator approves, an opt-in where the victim opted out,
// a correction of the victim's email an operator approves. Whatever the way, nothing of the victim's is
// read (no package holds a value of theirs), changed (their opt-out and attributes stay) or erased. The
// table is keyed by the ways in the code names (WAYS_IN, src/privacy-requests/intake.ts): a new way in
// fails the first test until it joins the walk. There is no request-creating command in the CLI and no
// request import (`lethe import` loads datastore entities with a datastore key, not requests).
// Real service, real SMTP server, real datastore, real HTTP.
import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { WAYS_IN } from '../../src/privacy-requests/intake.ts';
import { confirmLinkIn } from '../agents/support.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  codeIn,
  DEFAULT_ACTIONS,
  downloadLinkIn,
  isKind,
  type MailServer,
  publishDefaults,
  readZip,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import {
  attributesOf,
  definePolicy,
  entity,
  openStores,
  type Stores,
  uploadFile,
} from '../privacy-requests/rule-support.ts';
import { getRequest, submit, waitForStatus } from '../privacy-requests/support.ts';

const ACCESS = 'default_access_policy';
const ERASURE = 'default_erasure_policy';
const CONSENT = 'walk_consent';
const CORRECT = 'walk_correct';
const ASK_PHONE = { email: 'required', phone_number: 'optional' };
const OPT_IN = [{ data_use: 'marketing.advertising', opt_in: true }];

interface Victim {
  phone: string;
  userId: string;
  values: string[];
}

/** What a stranger asks for on one attempt: the policy and what goes with it. */
interface Attempt {
  policy: string;
  extra: Record<string, unknown>;
}

/**
 * A request a walk made: its id, the stranger's address where its messages go, and its policy when the way
 * chose another than the attempt's (undefined: the way refused the stranger).
 */
type Made = { id: string; mailbox: string; policy?: string } | undefined;

interface Walk {
  /** The stranger's attempt through this way, with the victim's phone beside their own address. */
  attempt(attempt: Attempt, phone: string): Promise<Made>;
}

describe('every way in, walked with a stranger’s phone number', () => {
  let mail: MailServer;
  let service: TestService;
  let stores: Stores;
  let token: string;
  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port), { worker: true });
    token = await service.rootToken();
    stores = await openStores(service);
    await definePolicy(service, CONSENT, [{ name: 'Consent', key: 'consent', action_type: 'consent' }]);
    await definePolicy(service, CORRECT, [
      { name: 'Correct', key: 'correct', action_type: 'update', targets: ['users.email'] },
    ]);
    await publishDefaults(service, {
      ...DEFAULT_ACTIONS,
      actions: [
        ...DEFAULT_ACTIONS.actions.map((action) => ({ ...action, identity_inputs: ASK_PHONE })),
        { policy_key: CONSENT, title: 'Consent', description: '', identity_inputs: ASK_PHONE },
        { policy_key: CORRECT, title: 'Correct', description: '', identity_inputs: ASK_PHONE },
      ],
    });
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  const tag = () => randomUUID().slice(0, 8);
  const strangerAddress = (role: string) => `stranger.${role}.${tag()}@example.net`;

  /** Verifies a public request with the code mailed to `to`. */
  const verify = async (id: string, to: string) => {
    const code = codeIn(await mail.waitFor(isKind('your verification code', to)));
    const verified = await service.call('POST', `/v1/privacy-request/${id}/verify`, { json: { code } });
    assert.equal(verified.status, 200, verified.text);
  };

  /** A public JSON submission; answers the request's id. */
  const submitPublic = async (json: Record<string, unknown>) => {
    const submitted = await service.call('POST', '/v1/privacy-center/privacy-request', { json });
    assert.equal(submitted.status, 200, submitted.text);
    return submitted.body.id as string;
  };

  /** An agent's request up to the agent's verified code: the stranger's own second address as the subject. */
  const agentRequest = async ({ policy, extra }: Attempt, phone: string) => {
    const agent = strangerAddress('agent');
    const subject = strangerAddress('subject');
    const id = await submitPublic({
      policy_key: policy,
      identity: { email: subject, phone_number: phone },
      agent: { name: 'A Stranger', email: agent },
      ...extra,
    });
    await verify(id, agent);
    return { id, subject };
  };

  const walks: Record<string, Walk> = {
    operator_api: {
      // The stranger holds no management token: neither the API's path nor Fides' answers them.
      async attempt({ policy, extra }, phone) {
        for (const path of ['/v1/privacy-request', '/api/v1/privacy-request', '/privacy-request']) {
          const answer = await service.call('POST', path, {
            json: [
              {
                policy_key: policy,
                identity: { email: strangerAddress('op'), phone_number: phone },
                ...extra,
              },
            ],
          });
          assert.equal(answer.status, 401, `${path}: ${answer.text}`);
        }
        return undefined;
      },
    },
    public_json: {
      async attempt({ policy, extra }, phone) {
        const mailbox = strangerAddress('json');
        const id = await submitPublic({
          policy_key: policy,
          identity: { email: mailbox, phone_number: phone },
          ...extra,
        });
        await verify(id, mailbox);
        return { id, mailbox };
      },
    },
    public_form: {
      async attempt({ policy, extra }, phone) {
        const mailbox = strangerAddress('form');
        const form = new URLSearchParams({ policy_key: policy, email: mailbox, phone_number: phone });
        const corrections = (extra.corrections ?? []) as { attribute: string; value: string }[];
        corrections.forEach((correction, index) => {
          form.set(`correction_attribute_${index + 1}`, correction.attribute);
          form.set(`correction_value_${index + 1}`, correction.value);
        });
        const answer = await fetch(`${service.url}/privacy-center/requests`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin: service.url },
          body: form.toString(),
        });
        assert.equal(answer.status, 303, await answer.text());
        // The status page's path, whatever its query (the page's language rides along as ?lang=).
        const statusPath = new URL(answer.headers.get('location') ?? '', 'http://127.0.0.1').pathname;
        const id = decodeURIComponent(statusPath.split('/').pop() ?? '');
        // The form's consent action is "Do not sell or share": an opt-out, which needs no code.
        if (policy !== CONSENT) await verify(id, mailbox);
        return { id, mailbox };
      },
    },
    public_opt_out: {
      // An opt-out needs no proof: whatever the stranger asked for, this way only opts out.
      async attempt(_attempt, phone) {
        const mailbox = strangerAddress('optout');
        const id = await submitPublic({
          policy_key: CONSENT,
          identity: { email: mailbox, phone_number: phone },
        });
        return { id, mailbox, policy: CONSENT };
      },
    },
    agent: {
      async attempt(attempt, phone) {
        const { id, subject } = await agentRequest(attempt, phone);
        const link = confirmLinkIn(await mail.waitFor(isKind('confirm who acts for you', subject)));
        const confirmed = await fetch(link, { method: 'POST', headers: { origin: service.url } });
        assert.equal(confirmed.status, 200, await confirmed.text());
        return { id, mailbox: subject };
      },
    },
    power_of_attorney: {
      // The operator accepts the document as it is: it names the subject, not the phone typed beside.
      async attempt(attempt, phone) {
        const { id, subject } = await agentRequest(attempt, phone);
        const accepted = await service.call('POST', `/v1/privacy-request/${id}/agent/accept`, {
          token,
          json: { reason: 'a power of attorney naming the subject', identities: [] },
        });
        assert.equal(accepted.status, 200, accepted.text);
        return { id, mailbox: subject };
      },
    },
  };

  it('walks every way in the code names', () => {
    assert.deepEqual(Object.keys(walks).sort(), [...WAYS_IN].sort());
  });

  /** A user in `crm` with an email, a phone, an SSN and a passport file, opted out of sale and sharing. */
  const seedVictim = async (): Promise<Victim> => {
    const label = tag();
    const victim = {
      email: `victim.${label}@example.com`,
      phone: `+4476${String(randomInt(1e8)).padStart(8, '0')}`,
      userId: randomUUID(),
      ssn: `${randomInt(100, 999)}-${randomInt(10, 99)}-${randomInt(1000, 9999)}`,
    };
    const created = await stores.crm.call('/api/entity/create', {
      json: [
        {
          id: victim.userId,
          name: 'users',
          attributes: [
            { name: 'email', value: victim.email },
            { name: 'phone', value: victim.phone },
            { name: 'ssn', value: victim.ssn },
          ],
        },
      ],
    });
    assert.equal(created.status, 203, created.text);
    await uploadFile(stores.crm, victim.userId, 'passport', `passport of victim ${label}`);
    const optOut = await submit(service, {
      policy_key: CONSENT,
      identity: { phone_number: victim.phone },
      consent_preferences: [{ data_use: 'marketing.advertising', opt_in: false }],
    });
    await waitForStatus(service, optOut.id, 'complete');
    return {
      phone: victim.phone,
      userId: victim.userId,
      values: [victim.email, victim.phone, victim.ssn, `passport of victim ${label}`],
    };
  };

  /** Approves the request once it waits for an operator, then waits for it to settle. */
  const settle = async (id: string) => {
    for (let tries = 0; tries < 300; tries++) {
      const status = (await getRequest(service, id)).status as string;
      if (status === 'pending') {
        const approved = await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
          token,
          json: { request_ids: [id] },
        });
        assert.equal(approved.status, 200, approved.text);
      } else if (['complete', 'canceled', 'denied', 'error'].includes(status)) return status;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.fail(`request ${id} did not settle`);
  };

  const consentOf = async (phone: string) => {
    const answer = await service.call('GET', `/v1/consent?phone_number=${encodeURIComponent(phone)}`, {
      token,
    });
    assert.equal(answer.status, 200, answer.text);
    return answer.body as {
      preferences: { data_use: string; opt_in: boolean }[];
      history: { opt_in: boolean; privacy_request_id: string | null }[];
    };
  };

  for (const [way, walk] of Object.entries(walks)) {
    it(`${way}: nothing of the victim is read, changed or erased`, async () => {
      const victim = await seedVictim();
      const attributesBefore = await attributesOf(stores.crm, victim.userId);
      const attempts: Attempt[] = [
        { policy: ACCESS, extra: {} },
        { policy: ERASURE, extra: {} },
        { policy: CONSENT, extra: { consent_preferences: OPT_IN } },
        {
          policy: CORRECT,
          extra: { corrections: [{ attribute: 'users.email', value: strangerAddress('new') }] },
        },
      ];
      const made: { id: string; mailbox: string; policy: string }[] = [];
      for (const attempt of attempts) {
        const request = await walk.attempt(attempt, victim.phone);
        if (request) made.push({ ...request, policy: request.policy ?? attempt.policy });
      }
      for (const request of made) {
        const view = await getRequest(service, request.id);
        assert.ok(!JSON.stringify(view.identity).includes(victim.phone), 'the phone is never trusted');
        if (request.policy === CORRECT) {
          const preview = await service.call('GET', `/v1/privacy-request/${request.id}/corrections`, {
            token,
          });
          assert.deepEqual(preview.body.changes, [], 'the reviewer is shown nothing of the victim');
        }
        const status = await settle(request.id);
        if (request.policy === ACCESS && status === 'complete') {
          const link = downloadLinkIn(
            await mail.waitFor(isKind('your request is complete', request.mailbox)),
          );
          const entries = await readZip(Buffer.from(await (await fetch(link)).arrayBuffer()));
          const everything = [...entries.values()].map((bytes) => bytes.toString('utf8')).join('\n');
          for (const value of victim.values)
            assert.ok(!everything.includes(value), 'nothing of the victim read');
        }
      }
      assert.deepEqual(
        await attributesOf(stores.crm, victim.userId),
        attributesBefore,
        'nothing changed or erased',
      );
      assert.equal((await entity(stores.crm, victim.userId)).files.length, 1, 'the file is still there');
      const consent = await consentOf(victim.phone);
      assert.deepEqual(
        consent.preferences.map((preference) => [preference.data_use, preference.opt_in]),
        [['marketing.advertising', false]],
        'the victim is still opted out',
      );
      assert.ok(
        consent.history.every((entry) => !entry.opt_in),
        'no opt-in was ever recorded for the victim',
      );
    });
  }
});
