// The law's clock through the API, with the subject's messages read on a real SMTP server: jurisdictions,
// due dates from the location, the acknowledgement, the one extension and each refusal of it, the reasoned
// denial, and the appeal from its link to a decision by another operator.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import { waitForStatus } from '../privacy-requests/support.ts';
import { sweep } from '../../src/privacy-requests/engine/worker.ts';
import {
  endOfLocalDay,
  localDayOf,
  plusBusinessDays,
  plusDays,
  plusMonths,
} from '../helpers/statute-days.ts';

const PASSWORD = 'correct horse battery staple';

/** A day as an English reader writes it, with its zone's short name: "December 24, 2026 (PST)". */
function spokenDay(at: Date, timeZone: string): string {
  const words = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone }).format(at);
  const zoneName = new Intl.DateTimeFormat('en', { timeZone, timeZoneName: 'short' })
    .formatToParts(at)
    .find((part) => part.type === 'timeZoneName')?.value;
  return `${words} (${zoneName})`;
}

describe('the law’s clock', () => {
  let mail: MailServer;
  let service: TestService;
  let root: string;
  let second: string;
  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port, { requireManualApproval: true }), {
      worker: true,
    });
    root = await service.rootToken();
    await publishDefaults(service);
    // This file dates requests by their location alone: the default access policy names no jurisdiction
    // here (migration 037's EU default is tested in test/privacy-center/location.test.ts).
    const cleared = await service.call('PATCH', '/v1/dsr/policy', {
      token: root,
      json: [
        {
          key: 'default_access_policy',
          name: 'Default access policy',
          drp_action: 'access',
          execution_timeframe: 45,
          jurisdiction: null,
        },
      ],
    });
    assert.deepEqual(cleared.body.failed, [], cleared.text);
    const user = await service.call('POST', '/v1/user', {
      token: root,
      json: { username: 'second.reviewer', password: PASSWORD, roles: ['approver'] },
    });
    assert.equal(user.status, 201, user.text);
    const login = await service.call('POST', '/v1/login', {
      json: { username: 'second.reviewer', password: PASSWORD },
    });
    assert.equal(login.status, 200, login.text);
    second = login.body.token_data.access_token;
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  const create = async (email: string, location?: string) => {
    const answer = await service.call('POST', '/v1/privacy-request', {
      token: root,
      json: [{ policy_key: 'default_access_policy', identity: { email }, ...(location ? { location } : {}) }],
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body.failed, []);
    return answer.body.succeeded[0];
  };
  const get = async (id: string) =>
    (await service.call('GET', `/v1/privacy-request/${id}`, { token: root })).body;
  const extend = (id: string, json: unknown, token = root) =>
    service.call('POST', `/v1/privacy-request/${id}/extend`, { token, json });
  const deny = (id: string, json: Record<string, unknown>, token = root) =>
    service.call('PATCH', '/v1/privacy-request/administrate/deny', {
      token,
      json: { request_ids: [id], ...json },
    });
  const mailTo = (email: string, subject: string) =>
    mail.waitFor((message) => message.to.includes(email) && message.text.includes(subject));

  it('lists every law in force with its periods, citation, zone and authority', async () => {
    const answer = await service.call('GET', '/v1/jurisdiction', { token: root });
    assert.equal(answer.status, 200, answer.text);
    const byCode = new Map(answer.body.map((rule: { code: string }) => [rule.code, rule]));
    const states = 'CA VA CO CT UT TX OR MT IA DE NE NH NJ TN MN MD IN KY RI'
      .split(' ')
      .map((s) => `US-${s}`);
    assert.deepEqual([...byCode.keys()].sort(), ['BR', 'CA-QC', 'CH', 'EEA', 'EU', 'UK', ...states].sort());
    const eu = byCode.get('EU') as Record<string, unknown>;
    assert.equal(eu.response_months, 1);
    assert.equal(eu.extension_months, 2);
    assert.equal(eu.judicial_remedy, true);
    assert.equal('appeal_days' in eu, false);
    const california = byCode.get('US-CA') as Record<string, unknown>;
    assert.equal(california.response_days, 45);
    assert.equal(california.acknowledge_business_days, 10);
    assert.equal(california.time_zone, 'America/Los_Angeles');
    assert.equal('appeal_days' in california, false);
    const iowa = byCode.get('US-IA') as Record<string, unknown>;
    assert.equal(iowa.response_days, 90);
    const texas = byCode.get('US-TX') as Record<string, unknown>;
    assert.equal(texas.appeal_response_days, 60);
    assert.match((texas.authority as { name: string }).name, /Texas Attorney General/);
    assert.equal((byCode.get('US-VA') as Record<string, unknown>).citation, 'Va. Code §59.1-577');
    const brazil = byCode.get('BR') as Record<string, unknown>;
    assert.equal(brazil.response_days, 15);
    assert.equal('extension_days' in brazil, false);
    const colorado = byCode.get('US-CO') as Record<string, unknown>;
    assert.equal(colorado.appeal_days, 45);
    assert.equal(colorado.appeal_response_days, 45);
    assert.match((colorado.authority as { name: string }).name, /Attorney General/);
  });

  it('dates a request by its location: one calendar month in the EU, the policy’s days without a rule', async () => {
    const french = await create('fr@example.com', 'FR');
    assert.equal(french.jurisdiction, 'EU');
    // One calendar month from the day of receipt in Paris, to the end of that day, Paris time.
    const received = new Date(french.requested_at);
    const expected = endOfLocalDay(plusMonths(localDayOf(received, 'Europe/Paris'), 1), 'Europe/Paris');
    assert.equal(french.due_date, expected.toISOString());
    assert.ok(french.days_left >= 27 && french.days_left <= 30, String(french.days_left));

    const japanese = await create('jp@example.com', 'JP');
    assert.equal(japanese.jurisdiction, null);
    // No rule: the policy's 45 days, counted in UTC days to the end of the last one.
    const japaneseDay = localDayOf(new Date(japanese.requested_at), 'UTC');
    assert.equal(japanese.due_date, endOfLocalDay(plusDays(japaneseDay, 45), 'UTC').toISOString());
    const stored = await service.services.db.query<{ due_at: Date }>(
      'SELECT due_at FROM privacy_requests WHERE id = $1',
      [french.id],
    );
    assert.equal(stored.rows[0]?.due_at.toISOString(), french.due_date, 'the due date is stored in UTC');
  });

  it('falls back to the policy’s jurisdiction when the location names none', async () => {
    const policies = await service.call('PATCH', '/v1/dsr/policy', {
      token: root,
      json: [
        { name: 'UK access', key: 'uk_access', jurisdiction: 'UK' },
        { name: 'Nowhere', key: 'nowhere_access', jurisdiction: 'ATLANTIS' },
        { name: 'California access', key: 'ca_access', jurisdiction: 'US-CA' },
      ],
    });
    assert.equal(policies.status, 200, policies.text);
    assert.equal(policies.body.succeeded[0].jurisdiction, 'UK');
    assert.match(policies.body.failed[0].message, /jurisdiction "ATLANTIS" is not a built-in jurisdiction/);
    for (const key of ['uk_access', 'ca_access']) {
      const rules = await service.call('PATCH', `/v1/dsr/policy/${key}/rule`, {
        token: root,
        json: [
          {
            name: 'Access',
            key: `${key}_rule`,
            action_type: 'access',
            storage_destination_key: 'default_storage',
          },
        ],
      });
      assert.equal(rules.status, 200, rules.text);
    }
    const made = await service.call('POST', '/v1/privacy-request', {
      token: root,
      json: [
        { policy_key: 'uk_access', identity: { email: 'uk@example.com' } },
        { policy_key: 'uk_access', identity: { email: 'uk.ca@example.com' }, location: 'US-CA' },
        { policy_key: 'uk_access', identity: { email: 'uk.jp@example.com' }, location: 'JP' },
      ],
    });
    assert.deepEqual(
      made.body.succeeded.map((request: { jurisdiction: string }) => request.jurisdiction),
      ['UK', 'US-CA', 'UK'],
    );
    // A state's law protects its own residents: under a California policy, a Texas request takes Texas's
    // rule, and one from a state without a law takes none (the policy's days), never California's.
    const states = await service.call('POST', '/v1/privacy-request', {
      token: root,
      json: [
        { policy_key: 'ca_access', identity: { email: 'ca.tx@example.com' }, location: 'US-TX' },
        { policy_key: 'ca_access', identity: { email: 'ca.fl@example.com' }, location: 'US-FL' },
        { policy_key: 'ca_access', identity: { email: 'ca.ia@example.com' }, location: 'US-IA' },
      ],
    });
    assert.deepEqual(
      states.body.succeeded.map((request: { jurisdiction: string }) => request.jurisdiction),
      ['US-TX', null, 'US-IA'],
    );
  });

  it('records the acknowledgement when the "received" message is delivered', async () => {
    const request = await create('ack@example.com', 'US-CA');
    assert.equal(request.acknowledged_at, null);
    await mailTo('ack@example.com', 'we received your request');
    let acknowledged: string | null = null;
    for (let tries = 0; tries < 50 && acknowledged === null; tries++) {
      acknowledged = (await get(request.id)).acknowledged_at;
      if (acknowledged === null) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(acknowledged, 'acknowledged_at is set');
    assert.ok(Date.parse(acknowledged) >= Date.parse(request.requested_at));
    // §7021(a): confirmed within 10 business days in California; the message says how the request is
    // verified and the date it will be answered by.
    const zone = 'America/Los_Angeles';
    const receiptDay = localDayOf(new Date(request.requested_at), zone);
    assert.equal(
      request.acknowledge_due_at,
      endOfLocalDay(plusBusinessDays(receiptDay, 10), zone).toISOString(),
    );
    const received = await mailTo('ack@example.com', 'we received your request');
    assert.match(received.text, /How we verify it is you: /);
    assert.ok(
      received.text.includes(`We will answer by ${spokenDay(new Date(request.due_date), zone)}`),
      received.text,
    );
    assert.equal(
      (await create('ack.eu@example.com', 'FR')).acknowledge_due_at,
      null,
      'the GDPR sets no time',
    );
  });

  it('keeps the identities of an open request past their TTL, and purges them once it is closed', async () => {
    const request = await create('long.open@example.com', 'US-CA');
    await service.services.db.query(
      "UPDATE privacy_requests SET identity_expires_at = now() - interval '1 minute' WHERE id = $1",
      [request.id],
    );
    await sweep(service.services);
    const sealed = async () =>
      (
        await service.services.db.query<{ identity_sealed: unknown }>(
          'SELECT identity_sealed FROM privacy_requests WHERE id = $1',
          [request.id],
        )
      ).rows[0]?.identity_sealed;
    assert.notEqual(await sealed(), null, 'open: a task or an appeal may still need them');
    assert.equal((await deny(request.id, { reason: 'No account.' })).status, 200);
    await service.services.db.query(
      "UPDATE privacy_requests SET identity_expires_at = now() - interval '1 minute' WHERE id = $1",
      [request.id],
    );
    await sweep(service.services);
    assert.equal(await sealed(), null, 'closed and past its time: purged');
  });

  it('flags a request not acknowledged by its time as stuck', async () => {
    const request = await create('unacknowledged@example.com', 'US-CA');
    await service.services.db.query(
      `UPDATE privacy_requests SET acknowledged_at = NULL, acknowledge_due_at = now() - interval '1 minute'
        WHERE id = $1`,
      [request.id],
    );
    const stuck = await service.call('GET', '/v1/privacy-request?stuck=true&size=100', { token: root });
    const listed = stuck.body.items.find((item: { id: string }) => item.id === request.id);
    assert.ok(listed, 'not acknowledged in time: stuck');
    assert.equal(listed.stuck_reason, 'not_acknowledged', 'the list says why');
    const read = await service.call('GET', `/v1/privacy-request/${request.id}`, { token: root });
    assert.equal(read.body.stuck, true);
    assert.equal(read.body.stuck_reason, 'not_acknowledged', 'the request says why');

    // Acknowledged in time, and the same request no longer stuck: no reason.
    await service.services.db.query(
      `UPDATE privacy_requests SET acknowledged_at = requested_at WHERE id = $1`,
      [request.id],
    );
    const acknowledged = await service.call('GET', `/v1/privacy-request/${request.id}`, { token: root });
    assert.equal(acknowledged.body.stuck, false);
    assert.equal(acknowledged.body.stuck_reason, null);
  });

  it('refuses an unknown location with 422 naming it, and creates nothing of the batch', async () => {
    const before = (await service.call('GET', '/v1/privacy-request?size=1', { token: root })).body.total;
    const answer = await service.call('POST', '/v1/privacy-request', {
      token: root,
      json: [
        { policy_key: 'default_access_policy', identity: { email: 'fr@example.com' }, location: 'FR' },
        { policy_key: 'default_access_policy', identity: { email: 'xx@example.com' }, location: 'XX' },
      ],
    });
    assert.equal(answer.status, 422, answer.text);
    assert.match(answer.body.detail, /Item 1: location "XX" is not an ISO 3166 code/);
    assert.equal(
      (await service.call('GET', '/v1/privacy-request?size=1', { token: root })).body.total,
      before,
    );
  });

  it('extends once with the reason and the new date told to the subject', async () => {
    const request = await create('extend@example.com', 'US-CA');
    const answer = await extend(request.id, { reason: 'We must gather records from three archives.' });
    assert.equal(answer.status, 200, answer.text);
    const zone = 'America/Los_Angeles';
    const extended = endOfLocalDay(plusDays(localDayOf(new Date(request.due_date), zone), 45), zone);
    assert.equal(answer.body.due_date, extended.toISOString());
    assert.equal(answer.body.extension_reason, 'We must gather records from three archives.');
    assert.ok(answer.body.extended_at);
    const notice = await mailTo('extend@example.com', 'we need more time for your request');
    assert.match(notice.text, /We must gather records from three archives\./);
    // The day in English words, as a reader writes it, with its zone named.
    assert.ok(notice.text.includes(`We will answer by ${spokenDay(extended, zone)}`), notice.text);

    const twice = await extend(request.id, { reason: 'again' });
    assert.equal(twice.status, 400);
    assert.match(twice.body.detail, /already extended/);
    assert.deepEqual(await get(request.id), {
      ...answer.body,
      acknowledged_at: (await get(request.id)).acknowledged_at,
    });
  });

  it('never extends an opt-out: 400 naming CCPA regulations §7026(f), and nothing changes', async () => {
    const policy = await service.call('PATCH', '/v1/dsr/policy', {
      token: root,
      json: [{ name: 'Do not sell (California)', key: 'ca_do_not_sell', jurisdiction: 'US-CA' }],
    });
    assert.deepEqual(policy.body.failed, [], policy.text);
    const rule = await service.call('PATCH', '/v1/dsr/policy/ca_do_not_sell/rule', {
      token: root,
      json: [{ name: 'Record consent', key: 'ca_record_consent', action_type: 'consent' }],
    });
    assert.deepEqual(rule.body.failed, [], rule.text);
    const made = await service.call('POST', '/v1/privacy-request', {
      token: root,
      json: [
        {
          policy_key: 'ca_do_not_sell',
          identity: { email: 'optout@example.com' },
          location: 'US-CA',
          consent_preferences: [{ data_use: 'marketing.advertising', opt_in: false }],
        },
      ],
    });
    assert.deepEqual(made.body.failed, [], made.text);
    const request = made.body.succeeded[0];
    const before = await get(request.id);
    const answer = await extend(request.id, { reason: 'We are busy.' });
    assert.equal(answer.status, 400, answer.text);
    assert.match(answer.body.detail, /opt-out .*never extended .*7026\(f\)/);
    const after = await get(request.id);
    assert.equal(after.due_date, before.due_date);
    assert.equal(after.extended_at, null);
    assert.equal(after.extension_reason, null);
  });

  it('refuses an extension naming why: no jurisdiction, closed, past due, a reason too long', async () => {
    const unruled = await create('unruled@example.com');
    const none = await extend(unruled.id, { reason: 'busy' });
    assert.equal(none.status, 400);
    assert.match(none.body.detail, /no jurisdiction/);

    const closed = await create('closed@example.com', 'FR');
    assert.equal((await deny(closed.id, { reason: 'not a customer' })).status, 200);
    const onClosed = await extend(closed.id, { reason: 'busy' });
    assert.equal(onClosed.status, 400);
    assert.match(onClosed.body.detail, /closed/);

    const late = await create('late@example.com', 'FR');
    await service.services.db.query(
      "UPDATE privacy_requests SET due_at = now() - interval '1 hour' WHERE id = $1",
      [late.id],
    );
    const beforeLate = await get(late.id);
    const pastDue = await extend(late.id, { reason: 'busy' });
    assert.equal(pastDue.status, 400);
    assert.match(pastDue.body.detail, /past its due date/);

    const tooLong = await extend(late.id, { reason: 'x'.repeat(2001) });
    assert.equal(tooLong.status, 422);
    assert.match(tooLong.body.detail, /reason/);
    const afterLate = await get(late.id);
    assert.equal(afterLate.due_date, beforeLate.due_date);
    assert.equal(afterLate.extended_at, null);
    assert.equal(
      mail.mailsTo('late@example.com').some((m) => m.text.includes('need more time')),
      false,
    );
  });

  it('requires a reason to deny, and tells the subject the reason and the authority', async () => {
    const request = await create('denied.eu@example.com', 'DE');
    const without = await deny(request.id, {});
    assert.equal(without.status, 422);
    assert.match(without.body.detail, /reason/);
    assert.equal((await get(request.id)).status, 'pending');

    const denied = await deny(request.id, { reason: 'We hold no account under this address.' });
    assert.equal(denied.status, 200, denied.text);
    assert.equal(denied.body.succeeded[0].denial_reason, 'We hold no account under this address.');
    const message = await mailTo('denied.eu@example.com', 'your request was declined');
    assert.match(message.text, /We hold no account under this address\./);
    assert.match(message.text, /lodge a complaint with the data protection supervisory authority/);
    assert.ok(message.text.includes('https://www.edpb.europa.eu/'));
    assert.equal(message.text.includes('/privacy-center/appeal/'), false, 'the GDPR gives no appeal');
    assert.match(message.text, /right to an effective judicial remedy/, 'GDPR art. 12(4): the courts too');
    assert.equal((await get(request.id)).appeal, null);
    assert.equal((await get(request.id)).refused_late, false, 'refused within the month');

    // Art. 12(4): a refusal is told within one month of receipt; one after it is recorded as late.
    const old = await create('denied.late@example.com', 'FR');
    await service.services.db.query(
      "UPDATE privacy_requests SET requested_at = now() - interval '40 days' WHERE id = $1",
      [old.id],
    );
    assert.equal((await deny(old.id, { reason: 'No account.' })).status, 200);
    assert.equal((await get(old.id)).refused_late, true);

    // Closed 20 days ago, 10 days before a due date now past: days_left stays what it was at closing.
    await service.services.db.query(
      `UPDATE privacy_requests SET requested_at = now() - interval '40 days', due_at = now() - interval '10 days',
              finalized_at = now() - interval '20 days' WHERE id = $1`,
      [request.id],
    );
    assert.equal((await get(request.id)).days_left, 10);
  });

  const appealLinkOf = async (email: string) => {
    const message = await mailTo(email, 'your request was declined');
    const match = /(http:\/\/[^\s"<]+\/privacy-center\/appeal\/([A-Za-z0-9_-]{43}))/.exec(message.text);
    assert.ok(match, 'the denial carries an appeal link');
    return { message, url: match[1] as string, token: match[2] as string };
  };

  it('takes an appeal through its link once, and a second operator reverses it: the request runs', async () => {
    const request = await create('appeal.co@example.com', 'US-CO');
    assert.equal((await deny(request.id, { reason: 'Identity not matched.' })).status, 200);
    const { message, url, token } = await appealLinkOf('appeal.co@example.com');
    assert.match(message.text, /the Colorado Attorney General/);
    assert.equal(/judicial remedy/.test(message.text), false, 'the state laws name the appeal instead');
    // The mail names the last day accepted, in Denver; the link accepts until the end of that day there.
    const named = /appeal this decision until the end of ([A-Z][a-z]+ \d{1,2}, \d{4}) \(M[SD]T\)/.exec(
      message.text,
    );
    assert.ok(named, message.text);
    const namedDay = new Date(`${named[1]} 12:00 UTC`);
    const window = await service.services.db.query<{ window_ends_at: Date }>(
      'SELECT window_ends_at FROM privacy_request_appeals WHERE privacy_request_id = $1',
      [request.id],
    );
    const lastDay = {
      year: namedDay.getUTCFullYear(),
      month: namedDay.getUTCMonth() + 1,
      day: namedDay.getUTCDate(),
    };
    assert.equal(
      window.rows[0]?.window_ends_at.toISOString(),
      endOfLocalDay(lastDay, 'America/Denver').toISOString(),
    );
    const kept = await service.services.db.query<{ days: number }>(
      `SELECT extract(epoch FROM identity_expires_at - now()) / 86400 AS days FROM privacy_requests WHERE id = $1`,
      [request.id],
    );
    assert.ok(Number(kept.rows[0]?.days) > 89, 'the identities outlive the window and the time to decide');

    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Appeal our decision/);

    // The appeal's due date is counted from the moment Lethe received it, somewhere between these two reads.
    // eslint-disable-next-line no-restricted-syntax -- a bound on Lethe's own clock, not a calendar expectation
    const sentFrom = new Date();
    const appealed = await service.call('POST', '/v1/privacy-center/appeal', {
      json: { token, statement: 'I have an account; my customer number is on the invoice.' },
    });
    // eslint-disable-next-line no-restricted-syntax -- the other bound on Lethe's own clock
    const sentTo = new Date();
    assert.equal(appealed.status, 200, appealed.text);
    assert.equal(appealed.body.privacy_request_id, request.id);
    // Colorado: decided within 45 days of the appeal's receipt, to the end of that day in Denver.
    const denver = 'America/Denver';
    const decideBy = (at: Date) => endOfLocalDay(plusDays(localDayOf(at, denver), 45), denver).toISOString();
    assert.ok(
      [decideBy(sentFrom), decideBy(sentTo)].includes(appealed.body.due_date),
      `Colorado: decided within 45 days (${appealed.body.due_date})`,
    );
    const again = await service.call('POST', '/v1/privacy-center/appeal', {
      json: { token, statement: 'twice' },
    });
    assert.equal(again.status, 404, 'the link is single use');

    const pending = await get(request.id);
    assert.equal(pending.appeal.status, 'pending');
    assert.equal(pending.appeal.statement, 'I have an account; my customer number is on the invoice.');
    assert.equal(pending.appeal.due_date, appealed.body.due_date);

    const bySame = await service.call('POST', `/v1/privacy-request/${request.id}/appeal/decide`, {
      token: root,
      json: { outcome: 'reversed', reason: 'Found the account.' },
    });
    assert.equal(bySame.status, 403, bySame.text);
    assert.equal((await get(request.id)).appeal.status, 'pending');

    const reversed = await service.call('POST', `/v1/privacy-request/${request.id}/appeal/decide`, {
      token: second,
      json: { outcome: 'reversed', reason: 'Found the account.' },
    });
    assert.equal(reversed.status, 200, reversed.text);
    assert.equal(reversed.body.appeal.status, 'reversed');
    assert.equal(reversed.body.appeal.decided_by, 'second.reviewer');
    const toldReversed = await mailTo('appeal.co@example.com', 'your appeal was decided');
    assert.match(toldReversed.text, /reversed our decision: we will now act on your request/);
    assert.match(toldReversed.text, /Found the account\./);
    const due = (await get(request.id)).due_date as string;
    assert.ok(
      toldReversed.text.includes(`We will complete it by ${spokenDay(new Date(due), 'America/Denver')}`),
      toldReversed.text,
    );
    assert.equal(due, appealed.body.due_date, 'the reversal runs by the appeal’s own deadline');
    const done = await waitForStatus(service, request.id, 'complete');
    assert.equal(done.status, 'complete');
    await mailTo('appeal.co@example.com', 'your request is complete');
  });

  it('tells the subject an upheld appeal with the attorney general, and refuses a late one with 410', async () => {
    const request = await create('appeal.va@example.com', 'US-VA');
    assert.equal((await deny(request.id, { reason: 'Outside our records.' })).status, 200);
    const { token } = await appealLinkOf('appeal.va@example.com');
    const appealed = await service.call('POST', '/v1/privacy-center/appeal', {
      json: { token, statement: 'Please look again.' },
    });
    assert.equal(appealed.status, 200, appealed.text);
    const upheld = await service.call('POST', `/v1/privacy-request/${request.id}/appeal/decide`, {
      token: second,
      json: { outcome: 'upheld', reason: 'No record matches after a second search.' },
    });
    assert.equal(upheld.status, 200, upheld.text);
    assert.equal(upheld.body.status, 'denied');
    const told = await mailTo('appeal.va@example.com', 'your appeal was decided');
    assert.match(told.text, /No record matches after a second search\./);
    assert.match(told.text, /the Office of the Attorney General of Virginia/);
    const decidedAgain = await service.call('POST', `/v1/privacy-request/${request.id}/appeal/decide`, {
      token: second,
      json: { outcome: 'reversed', reason: 'changed my mind' },
    });
    assert.equal(decidedAgain.status, 400);

    const late = await create('appeal.ct@example.com', 'US-CT');
    assert.equal((await deny(late.id, { reason: 'Outside our records.' })).status, 200);
    const lateLink = await appealLinkOf('appeal.ct@example.com');
    await service.services.db.query(
      "UPDATE privacy_request_appeals SET window_ends_at = now() - interval '1 minute' WHERE privacy_request_id = $1",
      [late.id],
    );
    const tooLate = await service.call('POST', '/v1/privacy-center/appeal', {
      json: { token: lateLink.token, statement: 'Please look again.' },
    });
    assert.equal(tooLate.status, 410, tooLate.text);
    assert.match(
      tooLate.body.detail,
      /The time to appeal this decision ended with \d{4}-\d{2}-\d{2} \(America\/New_York time\)/,
    );
    assert.equal((await get(late.id)).appeal.status, 'open');
    const latePage = await fetch(lateLink.url);
    assert.equal(latePage.status, 410);
  });
});
