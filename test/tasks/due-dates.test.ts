// A task never falls due after its request (issue 37: an EU request due 2026-12-28 got a task due
// 2027-01-07). The policy here gives 60 days, longer than either law: the task falls due the margin (5
// days) before the law's date, counted here from the statute's words and the request's own receipt time
// (never from the day the test runs): GDPR art. 12(3) "within one month of receipt" (the same day number
// of the next month, or that month's last day), CCPA §1798.130(a)(2)(A) "within 45 days", each to the end
// of its last local day (test/helpers/statute-days.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { engineConfig, submit, waitForStatus } from '../privacy-requests/support.ts';
import { putManualSystem, tasksOf } from './support.ts';
import { endOfLocalDay, localDayOf, plusDays, plusMonths } from '../helpers/statute-days.ts';

const DAY_MS = 86_400_000;
const MARGIN_DAYS = 5;

describe('task due dates', () => {
  let service: TestService;

  before(async () => {
    service = await startTestService({ ...engineConfig, taskMarginDays: MARGIN_DAYS }, { worker: true });
    await putManualSystem(service, 'crm', { name: 'Old CRM' });
    const created = await service.call('PATCH', '/v1/dsr/policy', {
      token: await service.rootToken(),
      json: [
        { name: 'Slow access', key: 'slow_access', drp_action: 'access', execution_timeframe: 60 },
        { name: 'Quick access', key: 'quick_access', drp_action: 'access', execution_timeframe: 20 },
      ],
    });
    assert.deepEqual(created.body.failed, [], created.text);
  });
  after(() => service.stop());

  // Each deadline ends with its last local day where the person lives (docs/deadlines.md).
  const cases = [
    {
      location: 'FR',
      law: 'GDPR, one month',
      due: (at: Date) => endOfLocalDay(plusMonths(localDayOf(at, 'Europe/Paris'), 1), 'Europe/Paris'),
    },
    {
      location: 'US-CA',
      law: 'CCPA, 45 days',
      due: (at: Date) =>
        endOfLocalDay(plusDays(localDayOf(at, 'America/Los_Angeles'), 45), 'America/Los_Angeles'),
    },
  ];
  for (const { location, law, due } of cases) {
    it(`falls due ${MARGIN_DAYS} days before the request's due date (${location}: ${law}), not the policy's`, async () => {
      const created = await submit(service, {
        policy_key: 'slow_access',
        identity: { email: `due.${location}@example.com` },
        location,
      });
      const request = await waitForStatus(service, created.id, 'requires_input');
      const lawDue = due(new Date(request.requested_at));
      assert.equal(request.due_date, lawDue.toISOString(), "the request's due date is the law's");
      const [task] = await tasksOf(service, created.id);
      assert.equal(task.due_at, new Date(lawDue.getTime() - MARGIN_DAYS * DAY_MS).toISOString());
    });
  }

  it("falls due the margin before the policy's own timeframe when that is the earlier", async () => {
    const created = await submit(service, {
      policy_key: 'quick_access',
      identity: { email: 'due.quick@example.com' },
      location: 'FR',
    });
    const request = await waitForStatus(service, created.id, 'requires_input');
    const [task] = await tasksOf(service, created.id);
    const policyDue = new Date(request.requested_at).getTime() + 20 * DAY_MS;
    assert.equal(task.due_at, new Date(policyDue - MARGIN_DAYS * DAY_MS).toISOString());
  });
});
