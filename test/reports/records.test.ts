// The records (CCPA regs §7101, §7102) and their retention, on real PostgreSQL: the CSV streamed page by
// page with no identity value, the year's figures, the CLI's CSV, bad input refused, and the purge of the
// identity values of requests closed longer ago than LETHE_REQUEST_RETENTION_DAYS (the record stays).
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { parseReportCommand, runReportCommand } from '../../src/cli/report-command.ts';
import { csvField } from '../../src/reports/records.ts';
import { purgeRetainedIdentities } from '../../src/reports/retention.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { engineConfig, waitForStatus } from '../privacy-requests/support.ts';

describe('records of requests', () => {
  let service: TestService;
  let root: string;
  const ids: Record<string, string> = {};
  /**
   * The UTC day Lethe stamped the first requests with (the report's days are UTC): the periods below are
   * computed from it, not from the day the test runs, which may be the next one by the time they are asked.
   */
  let receivedDay: string;
  before(async () => {
    service = await startTestService({ ...engineConfig, requireManualApproval: true }, { worker: true });
    root = await service.rootToken();
    const created = await service.call('POST', '/v1/privacy-request', {
      token: root,
      json: [
        {
          policy_key: 'default_access_policy',
          identity: { email: 'complete@example.com' },
          location: 'US-CA',
        },
        { policy_key: 'default_access_policy', identity: { email: 'denied@example.com' }, location: 'FR' },
        {
          policy_key: 'default_erasure_policy',
          identity: { email: 'extended@example.com' },
          location: 'US-CA',
        },
      ],
    });
    assert.deepEqual(created.body.failed, []);
    [ids.complete, ids.denied, ids.extended] = created.body.succeeded.map((item: { id: string }) => item.id);
    receivedDay = String(created.body.succeeded[0].requested_at).slice(0, 10);
    const approved = await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
      token: root,
      json: { request_ids: [ids.complete] },
    });
    assert.equal(approved.status, 200, approved.text);
    await waitForStatus(service, ids.complete as string, 'complete');
    const denied = await service.call('PATCH', '/v1/privacy-request/administrate/deny', {
      token: root,
      json: { request_ids: [ids.denied], reason: 'not a customer' },
    });
    assert.equal(denied.status, 200, denied.text);
    const extended = await service.call('POST', `/v1/privacy-request/${ids.extended}/extend`, {
      token: root,
      json: { reason: 'archives' },
    });
    assert.equal(extended.status, 200, extended.text);
  });
  after(() => service.stop());

  const rowsOf = (csv: string) =>
    csv
      .trimEnd()
      .split('\r\n')
      .map((line) => line.split(','));

  it('answers one CSV row per request received in the period, with no identity value', async () => {
    const answer = await service.call(
      'GET',
      `/v1/report/requests.csv?from=${receivedDay}&to=${receivedDay}`,
      {
        token: root,
      },
    );
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/csv/);
    assert.equal(answer.text.includes('@example.com'), false, 'no identity value');
    const [header, ...rows] = rowsOf(answer.text);
    assert.deepEqual(header, [
      'id',
      'received_at',
      'action_type',
      'jurisdiction',
      'status',
      'decided_at',
      'days_to_respond',
      'due_date',
      'extended',
      'appealed',
      'appeal_outcome',
      'duplicate_of',
      'excessive',
      'manner',
      'response_date',
      'denial_reason',
      'refused_late',
      'cancel_reason_code',
    ]);
    const byId = new Map(rows.map((row) => [row[0], row]));
    const complete = byId.get(ids.complete);
    assert.ok(complete);
    assert.deepEqual(
      [complete[2], complete[3], complete[4], complete[6], complete[8]],
      ['access', 'US-CA', 'complete', '0', 'false'],
    );
    const denied = byId.get(ids.denied);
    assert.deepEqual([denied?.[3], denied?.[4], denied?.[6]], ['EU', 'denied', '0']);
    const extended = byId.get(ids.extended);
    assert.deepEqual(
      [extended?.[2], extended?.[4], extended?.[5], extended?.[8]],
      ['erasure', 'pending', '', 'true'],
    );
    const dayBefore = new Date(Date.parse(receivedDay) - 86_400_000).toISOString().slice(0, 10);
    const before = await service.call('GET', `/v1/report/requests.csv?to=${dayBefore}`, { token: root });
    assert.equal(rowsOf(before.text).length, 1, 'only the header before the requests were received');
  });

  it('streams past one page of rows, in order of receipt', async () => {
    for (let batch = 0; batch < 11; batch++) {
      const answer = await service.call('POST', '/v1/privacy-request', {
        token: root,
        json: Array.from({ length: 50 }, () => ({
          policy_key: 'default_access_policy',
          identity: { phone_number: '+14155550123' },
        })),
      });
      assert.equal(answer.body.succeeded.length, 50);
    }
    const answer = await service.call('GET', '/v1/report/requests.csv', { token: root });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('transfer-encoding'), 'chunked');
    const rows = rowsOf(answer.text).slice(1);
    assert.equal(rows.length, 553);
    assert.equal(new Set(rows.map((row) => row[0])).size, 553, 'no row twice across pages');
    const received = rows.map((row) => row[1] as string);
    assert.deepEqual(received, [...received].sort());
  });

  it('writes the same CSV from the command line', async () => {
    const chunks: string[] = [];
    const out = new Writable({
      write(chunk, _encoding, done) {
        chunks.push(String(chunk));
        done();
      },
    });
    await runReportCommand(service.services, parseReportCommand(['requests', '--from', receivedDay]), out);
    const api = await service.call('GET', `/v1/report/requests.csv?from=${receivedDay}`, { token: root });
    assert.equal(chunks.join(''), api.text);
    assert.throws(() => parseReportCommand(['requests', '--from', 'yesterday']), /--from must be a date/);
    assert.throws(
      () => parseReportCommand(['requests', '--from', '2026-02-01', '--to', '2026-01-01']),
      /before/,
    );
  });

  it('answers the year’s figures per action type', async () => {
    const year = Number(receivedDay.slice(0, 4));
    const answer = await service.call('GET', `/v1/report/metrics?year=${year}`, { token: root });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.year, year);
    const access = answer.body.by_action_type.find(
      (row: { action_type: string }) => row.action_type === 'access',
    );
    assert.equal(access.received, 552);
    assert.equal(access.complied, 1);
    assert.equal(access.denied, 1);
    assert.equal(access.median_days, 0);
    assert.equal(access.mean_days, 0);
    const erasure = answer.body.by_action_type.find(
      (row: { action_type: string }) => row.action_type === 'erasure',
    );
    assert.deepEqual(erasure, {
      action_type: 'erasure',
      received: 1,
      complied: 0,
      denied: 0,
      median_days: null,
      mean_days: null,
    });
    const empty = await service.call('GET', `/v1/report/metrics?year=${year - 5}`, { token: root });
    assert.deepEqual(empty.body.by_action_type, []);
  });

  it('refuses bad input with 422 naming it', async () => {
    const noYear = await service.call('GET', '/v1/report/metrics', { token: root });
    assert.equal(noYear.status, 422);
    assert.match(noYear.body.detail, /year/);
    const badYear = await service.call('GET', '/v1/report/metrics?year=twenty', { token: root });
    assert.equal(badYear.status, 422);
    const badDate = await service.call('GET', '/v1/report/requests.csv?from=last-week', { token: root });
    assert.equal(badDate.status, 422);
    assert.match(badDate.body.detail, /from/);
    const reversed = await service.call('GET', '/v1/report/requests.csv?from=2026-02-01&to=2026-01-01', {
      token: root,
    });
    assert.equal(reversed.status, 422);
  });

  it('escapes CSV fields and defuses formulas', () => {
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('=HYPERLINK("x")'), `"'=HYPERLINK(""x"")"`);
    assert.equal(csvField(null), '');
    assert.equal(csvField(-3), '-3');
  });

  it('purges the identity values of requests closed longer ago than the retention, keeping the record', async () => {
    await service.services.db.query(
      "UPDATE privacy_requests SET finalized_at = now() - interval '731 days' WHERE id = $1",
      [ids.denied],
    );
    assert.equal(await purgeRetainedIdentities(service.services), 1);
    const purged = (await service.call('GET', `/v1/privacy-request/${ids.denied}`, { token: root })).body;
    assert.deepEqual(purged.identity, {});
    assert.equal(purged.status, 'denied');
    assert.equal(purged.denial_reason, 'not a customer');
    const stored = await service.services.db.query<{ sealed: Uint8Array | null; indexed: Uint8Array | null }>(
      'SELECT identity_sealed AS sealed, identity_index AS indexed FROM privacy_requests WHERE id = $1',
      [ids.denied],
    );
    assert.deepEqual(stored.rows[0], { sealed: null, indexed: null });
    const kept = (await service.call('GET', `/v1/privacy-request/${ids.complete}`, { token: root })).body;
    assert.deepEqual(kept.identity, { email: 'complete@example.com' }, 'a recent closure keeps its identity');
    const csv = await service.call('GET', `/v1/report/requests.csv?from=${receivedDay}`, { token: root });
    assert.ok(csv.text.includes(ids.denied as string), 'the record stays');
    assert.equal(await purgeRetainedIdentities(service.services), 0, 'a purged request is not purged again');
  });
});
