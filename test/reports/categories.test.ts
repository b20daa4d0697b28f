// The records of the law, complete (issue 35, item 7), on real PostgreSQL over real HTTP: the CSV says how
// each request came in (`manner`), the day it was answered (`response_date`, in its law's local days), the
// reason of a denial and whether a GDPR refusal came late; the year's figures are per CCPA category (know,
// delete, correct, opt_out, limit), filtered by jurisdiction, with unverifiable closures and operator cancels
// apart. Every expectation is computed here from the requests this test made and what the API said of them,
// never from Lethe's report code.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import { getRequest, waitForStatus } from '../privacy-requests/support.ts';
import { signIn } from '../tasks/support.ts';

const DAY_MS = 86_400_000;

/** CCPA regs §7102's categories, as the statute lists them (plus limit, Cal. Civ. Code §1798.121). */
const CATEGORIES = ['know', 'delete', 'correct', 'opt_out', 'limit'];

interface Made {
  id: string;
  category: 'know' | 'delete' | 'opt_out';
  jurisdiction: string | null;
  /** What became of it, as this test decided. */
  outcome: 'complied' | 'denied' | 'unverifiable' | 'withdrawn' | 'open';
  manner: 'api' | 'operator' | 'public';
  denialReason?: string;
}

describe('records by CCPA category, with manner and denial reason', () => {
  let mail: MailServer;
  let service: TestService;
  let root: string;
  let operator: string;
  const made: Made[] = [];

  const create = async (as: string, item: Record<string, unknown>) => {
    const answer = await service.call('POST', '/v1/privacy-request', { token: as, json: [item] });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body.failed, [], answer.text);
    return answer.body.succeeded[0].id as string;
  };
  /** Moves a request's receipt back (a fixture: it came in earlier), so that its days to respond are not all 0. */
  const receivedHoursAgo = (id: string, hours: number) =>
    service.services.db.query(
      `UPDATE privacy_requests SET requested_at = requested_at - make_interval(hours => $2) WHERE id = $1`,
      [id, hours],
    );
  const deny = async (id: string, reason: string) => {
    const answer = await service.call('PATCH', '/v1/privacy-request/administrate/deny', {
      token: root,
      json: { request_ids: [id], reason },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body.failed, [], answer.text);
  };
  const cancel = async (id: string, code: string, as = root) => {
    const answer = await service.call('POST', `/v1/privacy-request/${id}/cancel`, {
      token: as,
      json: { reason_code: code },
    });
    assert.equal(answer.status, 200, answer.text);
  };

  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port, { requireManualApproval: true }), {
      worker: true,
    });
    root = await service.rootToken();
    operator = await signIn(service, 'olga', ['approver']);
    await publishDefaults(service);
    const policy = await service.call('PATCH', '/v1/dsr/policy', {
      token: root,
      json: [{ name: 'Opt-out', key: 'opt_out_policy' }],
    });
    assert.deepEqual(policy.body.failed, [], policy.text);
    const rule = await service.call('PATCH', '/v1/dsr/policy/opt_out_policy/rule', {
      token: root,
      json: [{ name: 'Record consent', key: 'record_consent', action_type: 'consent' }],
    });
    assert.deepEqual(rule.body.failed, [], rule.text);

    const access = (email: string, location = 'US-CA') => ({
      policy_key: 'default_access_policy',
      identity: { email },
      location,
    });
    const erasure = (email: string) => ({
      policy_key: 'default_erasure_policy',
      identity: { email },
      location: 'US-CA',
    });

    // know, California: complied (received 36 hours before), denied (12 hours before), unverifiable, open.
    const complied = await create(root, access('complied@example.com'));
    await receivedHoursAgo(complied, 36);
    const approved = await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
      token: root,
      json: { request_ids: [complied] },
    });
    assert.equal(approved.status, 200, approved.text);
    await waitForStatus(service, complied, 'complete');
    made.push({ id: complied, category: 'know', jurisdiction: 'US-CA', outcome: 'complied', manner: 'api' });

    const denied = await create(operator, access('denied@example.com'));
    await receivedHoursAgo(denied, 12);
    await deny(denied, 'no account under this email');
    made.push({
      id: denied,
      category: 'know',
      jurisdiction: 'US-CA',
      outcome: 'denied',
      manner: 'operator',
      denialReason: 'no account under this email',
    });

    const unverifiable = await create(root, access('unverifiable@example.com'));
    await cancel(unverifiable, 'unverifiable', operator);
    made.push({
      id: unverifiable,
      category: 'know',
      jurisdiction: 'US-CA',
      outcome: 'unverifiable',
      manner: 'api',
    });

    made.push({
      id: await create(root, access('open@example.com')),
      category: 'know',
      jurisdiction: 'US-CA',
      outcome: 'open',
      manner: 'api',
    });

    // know, France (GDPR): refused 40 days after receipt, not extended: late.
    const late = await create(root, access('late@example.com', 'FR'));
    await receivedHoursAgo(late, 40 * 24);
    await deny(late, 'manifestly excessive');
    made.push({
      id: late,
      category: 'know',
      jurisdiction: 'EU',
      outcome: 'denied',
      manner: 'api',
      denialReason: 'manifestly excessive',
    });

    // delete, California: withdrawn by the subject, and one still open.
    const withdrawn = await create(root, erasure('withdrawn@example.com'));
    await cancel(withdrawn, 'subject_withdrew');
    made.push({
      id: withdrawn,
      category: 'delete',
      jurisdiction: 'US-CA',
      outcome: 'withdrawn',
      manner: 'api',
    });
    made.push({
      id: await create(operator, erasure('pending.erasure@example.com')),
      category: 'delete',
      jurisdiction: 'US-CA',
      outcome: 'open',
      manner: 'operator',
    });

    // delete, made on the public side with no location, not yet verified: the default policy's own
    // jurisdiction, EU (migration 037, docs/deadlines.md).
    const online = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: 'default_erasure_policy', identity: { email: 'online@example.com' } },
    });
    assert.equal(online.status, 200, online.text);
    made.push({
      id: online.body.id as string,
      category: 'delete',
      jurisdiction: 'EU',
      outcome: 'open',
      manner: 'public',
    });
    made.push({
      id: await create(root, {
        policy_key: 'opt_out_policy',
        identity: { email: 'opt.out@example.com' },
        location: 'US-CA',
        consent_preferences: [{ data_use: 'marketing.advertising', opt_in: false }],
      }),
      category: 'opt_out',
      jurisdiction: 'US-CA',
      outcome: 'open',
      manner: 'api',
    });
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  /** The CSV as rows of named fields (no field of these requests holds a comma or a quote). */
  const csvRecords = async () => {
    const answer = await service.call('GET', '/v1/report/requests.csv', { token: root });
    assert.equal(answer.status, 200, answer.text);
    const [header, ...lines] = answer.text.trimEnd().split('\r\n');
    const names = (header ?? '').split(',');
    return new Map(
      lines.map((line) => {
        const fields = line.split(',');
        const record = Object.fromEntries(names.map((name, index) => [name, fields[index] ?? '']));
        return [record.id as string, record];
      }),
    );
  };

  /** The day an instant falls on in a time zone, as YYYY-MM-DD. */
  const dayIn = (at: string, timeZone: string) =>
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
      new Date(at),
    );

  it('the CSV says the manner, the day of the answer, the denial reason and a late GDPR refusal', async () => {
    const records = await csvRecords();
    for (const request of made) {
      const record = records.get(request.id);
      assert.ok(record, `${request.id} has a row`);
      assert.equal(record.manner, request.manner, `${request.outcome} ${request.category}: manner`);
      assert.equal(record.denial_reason, request.denialReason ?? '', `${request.id}: denial reason`);
      const view = await getRequest(service, request.id);
      const decided =
        request.outcome === 'complied'
          ? view.finished_processing_at
          : request.outcome === 'open'
            ? null
            : (view.finalized_at ?? view.canceled_at);
      // California counts Pacific days (Cal. Gov. Code §6800); France its own (Regulation 1182/71).
      const zone = request.jurisdiction === 'EU' ? 'Europe/Paris' : 'America/Los_Angeles';
      assert.equal(
        record.response_date,
        decided === null ? '' : dayIn(decided, zone),
        `${request.outcome} ${request.category}: the local day it was answered`,
      );
      assert.equal(
        record.refused_late,
        request.jurisdiction === 'EU' && request.outcome === 'denied' ? 'true' : 'false',
        `${request.id}: a GDPR refusal after one month, not extended, is late`,
      );
    }
    const withdrawn = made.find((request) => request.outcome === 'withdrawn');
    assert.equal(records.get(withdrawn?.id ?? '')?.cancel_reason_code, 'subject_withdrew');
  });

  it('counts per CCPA category under one jurisdiction, unverifiable closures and operator cancels apart', async () => {
    const views = new Map(
      await Promise.all(
        made.map(async (request) => [request.id, await getRequest(service, request.id)] as const),
      ),
    );
    const year = new Date(views.get(made[0]?.id ?? '')?.requested_at).getUTCFullYear();
    const daysOf = (request: Made) => {
      const view = views.get(request.id);
      const decided = request.outcome === 'complied' ? view.finished_processing_at : view.finalized_at;
      return (Date.parse(decided) - Date.parse(view.requested_at)) / DAY_MS;
    };
    const round = (value: number) => Math.round(value * 10) / 10;

    for (const jurisdiction of ['US-CA', 'EU', undefined]) {
      const query = jurisdiction ? `year=${year}&jurisdiction=${jurisdiction}` : `year=${year}`;
      const answer = await service.call('GET', `/v1/report/metrics?${query}`, { token: root });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.jurisdiction, jurisdiction ?? null);
      const counted = made.filter(
        (request) =>
          (jurisdiction === undefined || request.jurisdiction === jurisdiction) &&
          new Date(views.get(request.id)?.requested_at).getUTCFullYear() === year,
      );
      assert.deepEqual(
        answer.body.by_category.map((row: { category: string }) => row.category),
        CATEGORIES,
        'every category, in the regulation’s order',
      );
      for (const category of CATEGORIES) {
        const mine = counted.filter((request) => request.category === category);
        const answered = mine
          .filter((request) => request.outcome === 'complied' || request.outcome === 'denied')
          .map(daysOf)
          .sort((a, b) => a - b);
        const middle = Math.floor(answered.length / 2);
        const median =
          answered.length === 0
            ? null
            : answered.length % 2 === 1
              ? (answered[middle] as number)
              : ((answered[middle - 1] as number) + (answered[middle] as number)) / 2;
        const mean = answered.length === 0 ? null : answered.reduce((a, b) => a + b, 0) / answered.length;
        const row = answer.body.by_category.find((item: { category: string }) => item.category === category);
        assert.deepEqual(
          row,
          {
            category,
            received: mine.length,
            complied: mine.filter((request) => request.outcome === 'complied').length,
            denied: mine.filter((request) => request.outcome === 'denied').length,
            closed_unverifiable: mine.filter((request) => request.outcome === 'unverifiable').length,
            operator_canceled: mine.filter(
              (request) => request.outcome === 'unverifiable' || request.outcome === 'withdrawn',
            ).length,
            median_days: median === null ? null : round(median),
            mean_days: mean === null ? null : round(mean),
          },
          `${jurisdiction ?? 'all'}: ${category}`,
        );
      }
    }
  });

  it('refuses an unknown jurisdiction with 422 naming it', async () => {
    const answer = await service.call('GET', '/v1/report/metrics?year=2026&jurisdiction=US-ZZ', {
      token: root,
    });
    assert.equal(answer.status, 422, answer.text);
    assert.match(answer.body.detail, /US-ZZ/);
    assert.match(answer.body.detail, /not a built-in jurisdiction/);
  });
});
