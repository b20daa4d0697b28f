// The messages Lethe sends a data subject, in plain text and in simple HTML, each signed with the
// organisation's name. Every value placed in HTML is escaped. No template names the person: they are
// addressed as "you".
import type { MessageKind } from '../../outbox/repository.ts';
import { localDate } from '../../deadlines/calendar.ts';
import { escapeHtml } from '../../validation/html.ts';

export interface ErasedInDatastore {
  datastore: string;
  entities: number;
  attributesMasked: number;
  attributesDeleted: number;
  filesDeleted: number;
  entitiesForgotten: number;
}

export interface MessageContext {
  organizationName: string;
  actionTitle: string;
  requestId: string;
  /** The page where the subject follows the request. */
  statusUrl: string;
  code?: string;
  codeTtlMinutes?: number;
  reason?: string;
  download?: { url: string; expiresAt: Date };
  erased?: readonly ErasedInDatastore[];
  /** The (new) date by which the request is answered. */
  dueDate?: Date;
  /** Whom the subject may complain to, under the request's jurisdiction (src/deadlines/jurisdictions.ts). */
  authority?: { name: string; url: string };
  /** The law also gives a court remedy against the refusal (GDPR and UK GDPR art. 12(4), art. 79). */
  judicialRemedy?: boolean;
  /** Where and until when a denial may be appealed (`until`: the end of the last local day accepted). */
  appeal?: { url: string; until: Date };
  /** The receipt message: the subject's email was confirmed with a code (else it is checked against our records). */
  verifiedByCode?: boolean;
  /** The IANA zone whose local days the request's dates are named in (src/deadlines/locations.ts). */
  timeZone?: string;
  /** A task of a manual system (docs/human-steps.md): for its respondent's link or its overdue reminder. */
  task?: { systemName: string; instructions: string; url?: string; expiresAt?: Date; dueAt?: Date };
  /** A completed erasure's recipients, who were told of it (GDPR art. 19). */
  recipients?: readonly string[];
  /** The authorized agent who asked on the subject's behalf, and the link where the subject confirms. */
  agent?: { name: string; confirmUrl: string; expiresAt: Date };
}

export interface RenderedMessage {
  subject: string;
  text: string;
  html: string;
}

/** A paragraph of the message: text, or text with a link. */
type Part = string | { text: string; url: string } | { list: string[] };

function render(subject: string, context: MessageContext, parts: readonly Part[]): RenderedMessage {
  const closing = [`Request reference: ${context.requestId}`, `${context.organizationName}`];
  const text = [
    ...parts.map((part) =>
      typeof part === 'string'
        ? part
        : 'url' in part
          ? `${part.text}\n${part.url}`
          : part.list.map((item) => `- ${item}`).join('\n'),
    ),
    ...closing,
  ].join('\n\n');
  const html = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family: sans-serif; line-height: 1.5; max-width: 40em">',
    ...parts.map((part) =>
      typeof part === 'string'
        ? `<p>${escapeHtml(part)}</p>`
        : 'url' in part
          ? `<p>${escapeHtml(part.text)}<br><a href="${escapeHtml(part.url)}">${escapeHtml(part.url)}</a></p>`
          : `<ul>${part.list.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>`,
    ),
    ...closing.map((line) => `<p style="color: #555">${escapeHtml(line)}</p>`),
    '</body></html>',
  ].join('\n');
  // A header line must stay one line whatever the operator typed as the organisation's name.
  const oneLine = `${context.organizationName}: ${subject}`.replace(/\p{Cc}+/gu, ' ');
  return { subject: oneLine, text: `${text}\n`, html: `${html}\n` };
}

/** A deadline as its last local day, with the zone that day is counted in. */
const dayOf = (at: Date, context: MessageContext) =>
  `${localDate(at, context.timeZone ?? 'UTC')} (${context.timeZone ?? 'UTC'} time)`;

/** The sentence naming the authority to complain to, with its address. */
function complaintPart(context: MessageContext, fallback: string): Part {
  return context.authority
    ? {
        text: `You have the right to lodge a complaint with ${context.authority.name}:`,
        url: context.authority.url,
      }
    : fallback;
}

function erasureLines(erased: readonly ErasedInDatastore[]): string[] {
  return erased.map(
    (store) =>
      `${store.datastore}: ${store.entities} records; ${store.attributesMasked} values masked, ` +
      `${store.attributesDeleted} values deleted, ${store.filesDeleted} files deleted, ` +
      `${store.entitiesForgotten} records removed`,
  );
}

export function renderMessage(kind: MessageKind, context: MessageContext): RenderedMessage {
  const follow = { text: 'You can follow your request here:', url: context.statusUrl };
  switch (kind) {
    case 'verification_code':
      return render('your verification code', context, [
        `Someone, probably you, asked ${context.organizationName} for: ${context.actionTitle}.`,
        `To confirm that this email address is yours, enter this code: ${context.code ?? ''}`,
        `The code works for ${context.codeTtlMinutes ?? 10} minutes. If you did not ask for this, ignore this message: nothing happens without the code.`,
        follow,
      ]);
    case 'received':
      return render('we received your request', context, [
        `We received your request: ${context.actionTitle}.`,
        context.verifiedByCode
          ? 'How we verify it is you: you confirmed this email address with the code we sent to it. Before we act, we match it with the records we hold; if that is not enough to be sure, we will ask you for more information by email.'
          : 'How we verify it is you: before we act, we match this email address with the records we hold; if that is not enough to be sure, we will ask you for more information by email.',
        context.dueDate
          ? `We will answer by ${dayOf(context.dueDate, context)}, and tell you by email.`
          : 'We will answer within the time the law gives us and tell you by email.',
        follow,
      ]);
    case 'denied': {
      const parts: Part[] = [
        `We declined your request: ${context.actionTitle}.`,
        `Reason: ${context.reason ?? 'no reason was given'}`,
      ];
      if (context.appeal)
        parts.push({
          text: `You may appeal this decision until the end of ${dayOf(context.appeal.until, context)}; a person other than the one who declined it will decide:`,
          url: context.appeal.url,
        });
      parts.push(
        complaintPart(
          context,
          'You may contact us, or the data protection authority of your country, if you disagree.',
        ),
      );
      if (context.judicialRemedy)
        parts.push(
          'You also have the right to an effective judicial remedy: you may take this decision, and the way we handled your data, before the courts.',
        );
      parts.push(follow);
      return render('your request was declined', context, parts);
    }
    case 'extended':
      return render('we need more time for your request', context, [
        `We need more time to answer your request: ${context.actionTitle}.`,
        `Reason: ${context.reason ?? 'no reason was given'}`,
        `We will answer by ${context.dueDate ? dayOf(context.dueDate, context) : 'the new date the law allows'}.`,
        follow,
      ]);
    case 'appeal_upheld':
      return render('your appeal was decided', context, [
        `We reviewed your appeal and kept our decision to decline your request: ${context.actionTitle}.`,
        `Reason: ${context.reason ?? 'no reason was given'}`,
        complaintPart(context, 'You may contact the data protection authority of your country.'),
        'You may send the authority a complaint about this decision: it is the last answer our appeal process gives.',
        follow,
      ]);
    case 'appeal_reversed':
      return render('your appeal was decided', context, [
        `We reviewed your appeal and reversed our decision: we will now act on your request: ${context.actionTitle}.`,
        `Reason: ${context.reason ?? 'no reason was given'}`,
        `We will complete it by ${context.dueDate ? dayOf(context.dueDate, context) : 'the date the law allows'} and tell you by email when it is done.`,
        follow,
      ]);
    case 'canceled':
      return render('your request was canceled', context, [
        `Your request was canceled: ${context.actionTitle}.`,
        `Reason: ${context.reason ?? 'no reason was given'}.`,
        follow,
      ]);
    case 'agent_confirmation':
      return render('confirm who acts for you', context, [
        `${context.agent?.name ?? 'Someone'} says they are your authorized agent and asked ${context.organizationName} on your behalf for: ${context.actionTitle}.`,
        {
          text: 'If you gave them permission, confirm it here (nothing happens until you do):',
          url: context.agent?.confirmUrl ?? '',
        },
        `The link works once, until ${(context.agent?.expiresAt ?? new Date()).toISOString().replace('T', ' ').slice(0, 16)} UTC. If you did not give anyone permission, ignore this message and the request will not go on.`,
      ]);
    case 'completed': {
      const parts: Part[] = [`Your request is complete: ${context.actionTitle}.`];
      if (context.download) {
        parts.push(
          {
            text: 'Download a copy of your personal data (a ZIP file with a readable report and a machine-readable data.json):',
            url: context.download.url,
          },
          `The link works until ${context.download.expiresAt.toISOString().replace('T', ' ').slice(0, 16)} UTC.`,
        );
      }
      if (context.erased) {
        parts.push(
          context.erased.length === 0
            ? 'We held no personal data about you to erase.'
            : 'We erased your personal data as follows:',
        );
        if (context.erased.length > 0) parts.push({ list: erasureLines(context.erased) });
        if (context.recipients && context.recipients.length > 0)
          parts.push('We told these recipients of your data to erase it too:', {
            list: [...context.recipients],
          });
      }
      parts.push(follow);
      return render('your request is complete', context, parts);
    }
    case 'respondent_invite': {
      const task = context.task;
      return render('a question about a privacy request', context, [
        `${context.organizationName} handles a privacy request and asks for your help with: ${task?.systemName ?? ''}.`,
        ...(task?.instructions ? [task.instructions] : []),
        { text: 'Please answer on this page (no sign-in needed):', url: task?.url ?? '' },
        `The link works once, until ${(task?.expiresAt ?? new Date()).toISOString().replace('T', ' ').slice(0, 16)} UTC.`,
      ]);
    }
    case 'subject_note':
      return render('a note about your request', context, [
        `A note about your request: ${context.actionTitle}.`,
        context.reason ?? '',
        follow,
      ]);
    case 'task_overdue': {
      const task = context.task;
      return render('a task is overdue', context, [
        `The task for ${task?.systemName ?? ''} on privacy request ${context.requestId} was due on ${(task?.dueAt ?? new Date()).toISOString().slice(0, 10)} and is still open.`,
        'Please complete it or skip it, saying why, in the console or with lethe task.',
      ]);
    }
  }
}
