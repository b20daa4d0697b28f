// LETHE_TIME_ZONE overrides every rule's time zone (DECISIONS "Local days", docs/deadlines.md): when it is
// set, a request's deadline ends at the end of its last local day in that zone, not in its law's; unset, each
// rule keeps its own. The expected deadlines are counted by test/helpers/statute-days.ts from the statute's
// words ("within 45 days"), never by Lethe's code; the request is made over real HTTP on real PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { endOfLocalDay, localDayOf, plusBusinessDays, plusDays } from '../helpers/statute-days.ts';
import { engineConfig } from '../privacy-requests/support.ts';

/** Far from California, so that its local days and California's differ for most of every day. */
const OVERRIDE = 'Pacific/Kiritimati';
/** CCPA's 45 days (Cal. Civ. Code §1798.130(a)(2)), 10 business days to acknowledge (regs §7021(a)). */
const CCPA_DAYS = 45;
const ACKNOWLEDGE_BUSINESS_DAYS = 10;

describe('LETHE_TIME_ZONE', () => {
  it('is read as an IANA zone for deadlines only when set; a wrong one refuses to start', () => {
    assert.equal(loadConfig({}).deadlineTimeZone, null, 'unset: each rule keeps its own zone');
    assert.equal(loadConfig({}).timeZone, 'UTC', 'the digest keeps its default');
    const set = loadConfig({ LETHE_TIME_ZONE: 'Europe/Berlin' });
    assert.equal(set.deadlineTimeZone, 'Europe/Berlin');
    assert.equal(set.timeZone, 'Europe/Berlin');
    assert.throws(() => loadConfig({ LETHE_TIME_ZONE: 'Mars/Olympus' }), ConfigError);
  });

  describe('set', () => {
    let service: TestService;
    let root: string;
    before(async () => {
      service = await startTestService({ ...engineConfig, deadlineTimeZone: OVERRIDE });
      root = await service.rootToken();
    });
    after(() => service.stop());

    it('counts a California request’s days in the zone it names', async () => {
      const answer = await service.call('POST', '/v1/privacy-request', {
        token: root,
        json: [
          { policy_key: 'default_access_policy', identity: { email: 'tz@example.com' }, location: 'US-CA' },
        ],
      });
      assert.deepEqual(answer.body.failed, [], answer.text);
      const request = answer.body.succeeded[0];
      assert.equal(request.jurisdiction, 'US-CA');
      const received = new Date(request.requested_at);
      const { rows } = await service.services.db.query<{ due_at: Date; acknowledge_due_at: Date }>(
        'SELECT due_at, acknowledge_due_at FROM privacy_requests WHERE id = $1',
        [request.id],
      );
      const stored = rows[0];
      assert.ok(stored);
      const day = localDayOf(received, OVERRIDE);
      assert.equal(
        stored.due_at.toISOString(),
        endOfLocalDay(plusDays(day, CCPA_DAYS), OVERRIDE).toISOString(),
        'the end of the 45th day after receipt, in LETHE_TIME_ZONE',
      );
      assert.equal(
        stored.acknowledge_due_at.toISOString(),
        endOfLocalDay(plusBusinessDays(day, ACKNOWLEDGE_BUSINESS_DAYS), OVERRIDE).toISOString(),
        'the acknowledgement’s 10 business days, in LETHE_TIME_ZONE',
      );
      const california = localDayOf(received, 'America/Los_Angeles');
      assert.notEqual(
        stored.due_at.toISOString(),
        endOfLocalDay(plusDays(california, CCPA_DAYS), 'America/Los_Angeles').toISOString(),
        'not California’s own end of day (Kiritimati’s days end 22 or 23 hours earlier)',
      );
    });
  });
});
