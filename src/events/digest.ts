// The daily digest (docs/events.md): one mail a day to each operator who asked for it (`digest: true`) and
// has an address, in the morning of LETHE_TIME_ZONE (from config.digestHour), listing what needs them:
// open requests overdue or due within LETHE_DUE_SOON_DAYS, stuck requests, their own open tasks and the
// appeals waiting for a decision. Ids and links only, never subject data. Nothing is sent when there is
// nothing; the day is marked either way, in the transaction that queues the mail, so two workers send it
// once. `lethe digest send` sends it now, whatever the hour.
import type { Queryable } from '../db/database.ts';
import { enqueueMessages } from '../outbox/enqueue.ts';
import { stuckCondition } from '../privacy-requests/stuck-repository.ts';
import { CLOSED_STATUSES } from '../privacy-requests/statuses.ts';
import type { Services } from '../services.ts';
import { escapeHtml } from '../validation/html.ts';
import { operatorAddresses } from './owner-notice.ts';
import { consoleLink } from './render.ts';

type DigestServices = Pick<Services, 'db' | 'keyring' | 'config'>;

/** The local calendar day and hour of `at` in `timeZone`. */
export function localDayAndHour(at: Date, timeZone: string): { day: string; hour: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  return { day: `${parts.year}-${parts.month}-${parts.day}`, hour: Number(parts.hour) };
}

interface DigestLine {
  id: string;
  text: string;
}

export interface Digest {
  sections: { title: string; lines: DigestLine[] }[];
}

const LIMIT = 50;

async function ids(db: Queryable, sql: string, params: unknown[]): Promise<DigestLine[]> {
  const { rows } = await db.query<DigestLine>(`${sql} LIMIT ${LIMIT}`, params);
  return rows;
}

/** What needs `username` at `at`; empty sections are left out. */
export async function digestFor(
  db: Queryable,
  config: DigestServices['config'],
  username: string,
  at: Date,
): Promise<Digest> {
  const due = `to_char(due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
  const sections = [
    {
      title: 'Overdue requests',
      lines: await ids(
        db,
        `SELECT id, 'due ' || ${due} || ', ' || status AS text FROM privacy_requests
          WHERE status <> ALL ($1) AND due_at < $2 ORDER BY due_at, id`,
        [CLOSED_STATUSES, at],
      ),
    },
    {
      title: `Requests due within ${config.dueSoonDays} days`,
      lines: await ids(
        db,
        `SELECT id, 'due ' || ${due} || ', ' || status AS text FROM privacy_requests
          WHERE status <> ALL ($1) AND due_at >= $2 AND due_at <= $2::timestamptz + make_interval(days => $3::int)
          ORDER BY due_at, id`,
        [CLOSED_STATUSES, at, config.dueSoonDays],
      ),
    },
    {
      title: 'Stuck requests',
      lines: await ids(
        db,
        `SELECT id, status AS text FROM privacy_requests WHERE ${stuckCondition('$1')} ORDER BY updated_at, id`,
        [config.stuckAfterSeconds],
      ),
    },
    {
      title: 'Your open tasks',
      lines: await ids(
        db,
        `SELECT privacy_request_id AS id, action || ' in ' || system_name || ', due ' || ${due} AS text
           FROM tasks WHERE status = 'open' AND assignee = $1 ORDER BY due_at, id`,
        [username],
      ),
    },
    {
      title: 'Appeals to decide',
      lines: await ids(
        db,
        `SELECT privacy_request_id AS id, 'decide by ' || ${due} AS text
           FROM privacy_request_appeals WHERE status = 'pending' ORDER BY due_at, privacy_request_id`,
        [],
      ),
    },
  ];
  return { sections: sections.filter((section) => section.lines.length > 0) };
}

function render(config: DigestServices['config'], digest: Digest, day: string) {
  const subject = `Lethe: what needs you on ${day}`;
  const text = digest.sections
    .map(
      (section) =>
        `${section.title}:\n${section.lines.map((line) => `- ${line.id} (${line.text}) ${consoleLink(config, line.id)}`).join('\n')}`,
    )
    .join('\n\n');
  const html = digest.sections
    .map(
      (section) =>
        `<h3>${escapeHtml(section.title)}</h3><ul>${section.lines
          .map(
            (line) =>
              `<li><a href="${escapeHtml(consoleLink(config, line.id))}">${escapeHtml(line.id)}</a> (${escapeHtml(line.text)})</li>`,
          )
          .join('')}</ul>`,
    )
    .join('');
  return { subject, text: `${text}\n`, html };
}

/**
 * Sends the digest to each operator who asked for it (only `username`, when given) and has not had it on
 * today's local day; `now` sends whatever the hour. Answers the usernames a mail was queued for.
 */
export async function sendDigests(
  services: DigestServices,
  at: Date,
  options: { now?: boolean; username?: string } = {},
): Promise<string[]> {
  const { db, config, keyring } = services;
  const { day, hour } = localDayAndHour(at, config.timeZone);
  if (!options.now && hour < config.digestHour) return [];
  const recipients = await operatorAddresses(
    db,
    `digest AND ($1::text IS NULL OR username = $1) AND ($2 OR digest_sent_on IS DISTINCT FROM $3::date)`,
    [options.username ?? null, options.now === true, day],
  );
  const sent: string[] = [];
  for (const { username, address } of recipients) {
    await db.transaction(async (tx) => {
      // The day is claimed first: another worker sending the same digest finds it taken.
      const { rowCount } = await tx.query(
        `UPDATE operators SET digest_sent_on = $2::date
          WHERE username = $1 AND digest AND ($3 OR digest_sent_on IS DISTINCT FROM $2::date)`,
        [username, day, options.now === true],
      );
      if (!rowCount) return;
      const digest = await digestFor(tx, config, username, at);
      if (digest.sections.length === 0) return;
      await enqueueMessages(tx, keyring, [
        { privacyRequestId: null, kind: 'event_digest', to: address, ...render(config, digest, day) },
      ]);
      sent.push(username);
    });
  }
  return sent;
}
