// The one extension a law allows (GDPR art. 12(3), CCPA §7021(b), the state laws): before the due date,
// while the request is open, with a reason the subject is told together with the new date. The rules are
// src/deadlines/clock.ts's; this runs them in one transaction with the log, the audit and the message.
import { type ChangeActor, recordChange } from '../audit/audit-log.ts';
import { principalName } from '../auth/scopes.ts';
import { addDays } from '../deadlines/calendar.ts';
import { extendedDueDate, extensionRefusal, timeZoneOf } from '../deadlines/clock.ts';
import { jurisdictionByCode } from '../deadlines/jurisdictions.ts';
import { badRequest, notFound } from '../errors.ts';
import { queueSubjectMessages } from './messages/subject-messages.ts';
import type { Services } from '../services.ts';
import { clockRepository } from './clock-repository.ts';
import { noticeChange } from './lifecycle.ts';
import { logRepository } from './log-repository.ts';
import { privacyRequestRepository as repo } from './repository.ts';
import { CLOSED_STATUSES } from './statuses.ts';
import { loadPolicyEmbed } from './view.ts';

export async function extendRequest(
  services: Pick<Services, 'db' | 'config' | 'keyring'>,
  id: string,
  reason: string,
  by: ChangeActor,
): Promise<void> {
  await services.db.transaction(async (tx) => {
    const row = await repo.lock(tx, id);
    if (!row) throw notFound(`No privacy request with id ${id}.`);
    const now = new Date();
    const dueAt =
      row.due_at ?? addDays(row.requested_at, (await loadPolicyEmbed(tx, row.policy_id)).execution_timeframe);
    const optOut =
      (await clockRepository.policyClocks(tx, [row.policy_id])).get(row.policy_id)?.opt_out ?? false;
    const refusal = extensionRefusal(
      {
        closed: CLOSED_STATUSES.includes(row.status),
        jurisdiction: row.jurisdiction,
        extendedAt: row.extended_at,
        dueAt,
        optOut,
      },
      now,
    );
    const jurisdiction = jurisdictionByCode(row.jurisdiction);
    if (refusal !== undefined || !jurisdiction) throw badRequest(`Cannot extend request ${id}: ${refusal}`);
    const timeZone = timeZoneOf(row.location, row.jurisdiction, services.config.deadlineTimeZone);
    const newDueAt = extendedDueDate(dueAt, jurisdiction, timeZone);
    if (!(await clockRepository.extend(tx, id, newDueAt, reason, now)))
      throw badRequest(
        `Cannot extend request ${id}: the request was already extended; the law allows one extension.`,
      );
    const name = principalName(by.principal);
    // The reason is free text and may name the subject: the request's own log keeps it, the audit does not.
    await logRepository.appendLog(tx, id, [
      {
        kind: 'note',
        message: `extended by ${name} to ${newDueAt.toISOString()}: ${reason}`,
        details: { due_date: newDueAt.toISOString() },
      },
    ]);
    await recordChange(tx, by, 'privacy-request.extend', { privacy_request_id: id });
    await queueSubjectMessages(tx, services, [
      { request: row, kind: 'extended', details: { reason, dueDate: newDueAt, timeZone } },
    ]);
    await noticeChange(tx, services, row, { kind: 'extended', dueAt: newDueAt });
  });
}
