// The appeal of a denial (US state laws; docs/deadlines.md). A denial under a jurisdiction that gives an
// appeal opens one with a single-use link valid for the appeal window; the subject's statement makes it
// pending with its own due date; an operator other than the one who denied decides it. Reversed, the
// request is approved and runs; upheld, the subject is told with the authority to complain to. The
// statement is the subject's own words: it stays on the appeal, never in a log line nor the audit.
import { type ChangeActor, recordChange } from '../audit/audit-log.ts';
import { principalName } from '../auth/scopes.ts';
import { digest, generateSecret } from '../crypto/credentials.ts';
import type { Queryable } from '../db/database.ts';
import { appealDueDate, appealWindowEnd, statutoryDueDate, timeZoneOf } from '../deadlines/clock.ts';
import { localDate } from '../deadlines/calendar.ts';
import { clockRepository } from './clock-repository.ts';
import { jurisdictionByCode } from '../deadlines/jurisdictions.ts';
import { badRequest, forbidden, gone, notFound } from '../errors.ts';
import { queueSubjectMessages } from './messages/subject-messages.ts';
import { appealUrl } from '../privacy-center-settings/public-url.ts';
import type { Services } from '../services.ts';
import { approveRequest } from './approval.ts';
import { type AppealRow, appealRepository } from './appeal-repository.ts';
import { noticeChange } from './lifecycle.ts';
import { logRepository } from './log-repository.ts';
import { privacyRequestRepository as repo, type RequestRow } from './repository.ts';

type AppealServices = Pick<Services, 'db' | 'queue' | 'config' | 'keyring'>;

/** How the subject reads a link that leads nowhere (src/i18n/). */
const UNKNOWN_LINK = { key: 'refusal.appeal_link_unknown' } as const;

/**
 * Tells the subject of a denial its reason and the authority to complain to and, where the jurisdiction
 * gives an appeal, opens it and sends its link. Runs in the denial's transaction.
 */
export async function noticeDenial(
  tx: Queryable,
  services: Pick<Services, 'config' | 'keyring'>,
  row: RequestRow,
  reason: string,
  by: ChangeActor,
  at: Date,
): Promise<void> {
  const jurisdiction = jurisdictionByCode(row.jurisdiction);
  const zone = timeZoneOf(row.location, row.jurisdiction, services.config.deadlineTimeZone);
  // GDPR/UK art. 12(4): a refusal is told within one month of receipt, even when the answer was extended;
  // a later one is recorded as late (the records show it).
  if (jurisdiction?.judicialRemedy && at > statutoryDueDate(row.requested_at, jurisdiction, zone)) {
    await clockRepository.markRefusedLate(tx, row.id);
    await logRepository.appendLog(tx, row.id, [
      { kind: 'note', message: 'refused after the one month the law gives to refuse (art. 12(4)): late' },
    ]);
  }
  const until = appealWindowEnd(at, jurisdiction, zone);
  let appeal: { url: string; until: Date } | undefined;
  if (until) {
    const token = generateSecret();
    await appealRepository.open(tx, {
      id: row.id,
      tokenHash: digest(token),
      windowEndsAt: until,
      // The person, not the login: a client counts as the operator who made it (four eyes are two people).
      deniedBy: by.principal.actsFor,
    });
    appeal = { url: appealUrl(services.config, token), until };
    // A reversal runs the request: its identities must outlive the window and the time to decide.
    if (jurisdiction)
      await clockRepository.keepIdentityUntil(tx, row.id, appealDueDate(until, jurisdiction, zone));
  }
  await queueSubjectMessages(tx, services, [
    {
      request: row,
      kind: 'denied',
      details: {
        reason,
        authority: jurisdiction?.authority,
        judicialRemedy: jurisdiction?.judicialRemedy,
        appeal,
        timeZone: zone,
      },
    },
  ]);
}

/** What the public appeal page shows before the statement is sent: the open appeal of a valid link. */
export async function appealOfLink(
  services: Pick<Services, 'db' | 'config'>,
  token: string,
): Promise<AppealRow> {
  const appeal = await appealRepository.findByToken(services.db, digest(token));
  if (!appeal) throw notFound('This appeal link is unknown or was already used.', UNKNOWN_LINK);
  if (new Date() > appeal.window_ends_at)
    throw windowClosed(appeal, await repo.find(services.db, appeal.privacy_request_id), services.config);
  return appeal;
}

/** The refusal of a late appeal, naming the last day accepted in the request's own zone, as the mail did. */
function windowClosed(
  appeal: AppealRow,
  row: RequestRow | undefined,
  config: Pick<Services['config'], 'deadlineTimeZone'>,
) {
  const zone = timeZoneOf(row?.location ?? null, row?.jurisdiction ?? null, config.deadlineTimeZone);
  return gone(
    `The time to appeal this decision ended with ${localDate(appeal.window_ends_at, zone)} (${zone} time); you may still complain to the authority named in our message.`,
    { key: 'refusal.appeal_closed', values: { until: appeal.window_ends_at } },
  );
}

/** The subject's appeal: the link spent, the statement kept, the appeal pending until its due date. */
export async function submitAppeal(
  services: AppealServices,
  token: string,
  statement: string,
): Promise<{ privacy_request_id: string; due_date: Date }> {
  return services.db.transaction(async (tx) => {
    const appeal = await appealRepository.lockByToken(tx, digest(token));
    if (!appeal) throw notFound('This appeal link is unknown or was already used.', UNKNOWN_LINK);
    const now = new Date();
    const row = await repo.find(tx, appeal.privacy_request_id);
    if (now > appeal.window_ends_at) throw windowClosed(appeal, row, services.config);
    const jurisdiction = jurisdictionByCode(row?.jurisdiction);
    if (!row || !jurisdiction)
      throw notFound('This appeal link is unknown or was already used.', UNKNOWN_LINK);
    const zone = timeZoneOf(row.location, row.jurisdiction, services.config.deadlineTimeZone);
    const dueAt = appealDueDate(now, jurisdiction, zone);
    await appealRepository.submit(tx, row.id, statement, now, dueAt);
    await logRepository.appendLog(tx, row.id, [
      { kind: 'note', message: `appeal received; to be decided by ${localDate(dueAt, zone)} (${zone})` },
    ]);
    await noticeChange(tx, services, row, { kind: 'appeal_submitted', dueAt });
    return { privacy_request_id: row.id, due_date: dueAt };
  });
}

/**
 * An operator's decision on a pending appeal; the one who denied the request may not make it. Reversed:
 * denied -> pending -> approved, and the request runs. Upheld: the subject is told, with the authority.
 */
export async function decideAppeal(
  services: AppealServices,
  id: string,
  decision: { outcome: 'upheld' | 'reversed'; reason: string },
  by: ChangeActor,
): Promise<void> {
  await services.db.transaction(async (tx) => {
    const row = await repo.lock(tx, id);
    if (!row) throw notFound(`No privacy request with id ${id}.`);
    const appeal = await appealRepository.lock(tx, id);
    if (!appeal || appeal.status !== 'pending')
      throw badRequest(`Request ${id} has no pending appeal to decide.`);
    if (appeal.denied_by === by.principal.actsFor)
      throw forbidden(
        'The operator who denied this request cannot decide its appeal, neither signed in nor through a client they made; another operator must.',
      );
    const name = principalName(by.principal);
    await appealRepository.decide(tx, id, { ...decision, by: name, at: new Date() });
    await recordChange(tx, by, 'privacy-request.appeal.decide', {
      privacy_request_id: id,
      outcome: decision.outcome,
    });
    await noticeChange(tx, services, row, { kind: 'appeal_decided', outcome: decision.outcome });
    if (decision.outcome === 'reversed') {
      await repo.transition(tx, {
        id,
        from: 'denied',
        to: 'pending',
        changes: { finalized_at: null, finalized_by: null },
        message: `denial reversed on appeal by ${name}: ${decision.reason}`,
      });
      // The appeal's own deadline is the date by which the reversal is carried out (the request runs now).
      const dueAt = appeal.due_at ?? row.due_at;
      if (dueAt) await clockRepository.setDueDate(tx, id, dueAt);
      await approveRequest(
        services.queue,
        tx,
        { ...row, status: 'pending' },
        name,
        `approved on appeal by ${name}`,
      );
      await queueSubjectMessages(tx, services, [
        {
          request: row,
          kind: 'appeal_reversed',
          details: {
            reason: decision.reason,
            dueDate: dueAt ?? undefined,
            timeZone: timeZoneOf(row.location, row.jurisdiction, services.config.deadlineTimeZone),
          },
        },
      ]);
      return;
    }
    await logRepository.appendLog(tx, id, [
      { kind: 'note', message: `appeal upheld by ${name}: ${decision.reason}` },
    ]);
    await queueSubjectMessages(tx, services, [
      {
        request: row,
        kind: 'appeal_upheld',
        details: { reason: decision.reason, authority: jurisdictionByCode(row.jurisdiction)?.authority },
      },
    ]);
  });
}
