// The messages Lethe sends a data subject, in plain text and in simple HTML, each signed with the
// organisation's name, worded from the catalogue of the request's language (src/i18n/). Every value placed
// in HTML is escaped. No template names the person: they are addressed as "you".
import { type MessageKey, type MessageValues, translate } from '../../i18n/catalogue.ts';
import { formatDay, formatInstant } from '../../i18n/dates.ts';
import { type Translations, translatedText } from '../../i18n/operator-texts.ts';
import type { RequestMessageKind } from '../../outbox/repository.ts';
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
  /** The language the message is written in (one of src/i18n/catalogues/). */
  language: string;
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
  authority?: { name: string; url: string; nameKey?: MessageKey };
  /** The law also gives a court remedy against the refusal (GDPR and UK GDPR art. 12(4), art. 79). */
  judicialRemedy?: boolean;
  /** Where and until when a denial may be appealed (`until`: the end of the last local day accepted). */
  appeal?: { url: string; until: Date };
  /** The receipt message: the subject's email was confirmed with a code (else it is checked against our records). */
  verifiedByCode?: boolean;
  /** The IANA zone whose local days the request's dates are named in (src/deadlines/locations.ts). */
  timeZone?: string;
  /** A task of a manual system (docs/human-steps.md): for its respondent's link or its overdue reminder. */
  task?: {
    systemName: string;
    instructions: string;
    /** The instructions in other languages: the message shows those of its own language, if any. */
    translations?: Translations;
    url?: string;
    expiresAt?: Date;
    dueAt?: Date;
  };
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
  const closing = [
    translate(context.language, 'mail.reference', { requestId: context.requestId }),
    `${context.organizationName}`,
  ];
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
    `<html lang="${escapeHtml(context.language)}"><head><meta charset="utf-8">`,
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

/** The sentence naming the authority to complain to, with its address. */
function complaintPart(context: MessageContext, say: Say, fallback: MessageKey): Part {
  if (!context.authority) return say(fallback);
  const authority = context.authority.nameKey ? say(context.authority.nameKey) : context.authority.name;
  return { text: say('mail.complaint', { authority }), url: context.authority.url };
}

function erasureLines(say: Say, erased: readonly ErasedInDatastore[]): string[] {
  return erased.map((store) =>
    say('mail.completed.erased_line', {
      datastore: store.datastore,
      entities: store.entities,
      masked: store.attributesMasked,
      deleted: store.attributesDeleted,
      files: store.filesDeleted,
      forgotten: store.entitiesForgotten,
    }),
  );
}

type Say = (key: MessageKey, values?: MessageValues) => string;

export function renderMessage(kind: RequestMessageKind, context: MessageContext): RenderedMessage {
  const language = context.language;
  const say: Say = (key, values) => translate(language, key, values);
  const action = context.actionTitle;
  const organization = context.organizationName;
  const reason = context.reason ?? say('mail.no_reason');
  // Lethe's own pages open in the message's language, whatever the reader's browser asks for.
  const page = (url: string) => (url ? `${url}${url.includes('?') ? '&' : '?'}lang=${language}` : url);
  const follow = { text: say('mail.follow'), url: page(context.statusUrl) };
  const instant = (at: Date | undefined) => formatInstant(language, at ?? new Date());
  // A deadline is named as its last local day, in the zone its days are counted in.
  const day = (at: Date) => formatDay(language, at, context.timeZone ?? 'UTC');
  switch (kind) {
    case 'verification_code':
      return render(say('mail.verification_code.subject'), context, [
        say('mail.verification_code.asked', { organization, action }),
        say('mail.verification_code.code', { code: context.code ?? '' }),
        say('mail.verification_code.lifetime', { minutes: context.codeTtlMinutes ?? 10 }),
        follow,
      ]);
    case 'received':
      return render(say('mail.received.subject'), context, [
        say('mail.received.received', { action }),
        say(context.verifiedByCode ? 'mail.received.verified_by_code' : 'mail.received.verified_by_records'),
        context.dueDate
          ? say('mail.received.answer_by', { due: day(context.dueDate) })
          : say('mail.received.answer'),
        follow,
      ]);
    case 'denied': {
      const parts: Part[] = [say('mail.denied.declined', { action }), say('mail.reason', { reason })];
      if (context.appeal)
        parts.push({
          text: say('mail.denied.appeal', { until: day(context.appeal.until) }),
          url: page(context.appeal.url),
        });
      parts.push(complaintPart(context, say, 'mail.denied.disagree'));
      if (context.judicialRemedy) parts.push(say('mail.denied.judicial_remedy'));
      parts.push(follow);
      return render(say('mail.denied.subject'), context, parts);
    }
    case 'extended':
      return render(say('mail.extended.subject'), context, [
        say('mail.extended.more_time', { action }),
        say('mail.reason', { reason }),
        context.dueDate
          ? say('mail.extended.answer_by', { due: day(context.dueDate) })
          : say('mail.extended.answer_by_law'),
        follow,
      ]);
    case 'appeal_upheld':
      return render(say('mail.appeal_upheld.subject'), context, [
        say('mail.appeal_upheld.kept', { action }),
        say('mail.reason', { reason }),
        complaintPart(context, say, 'mail.appeal_upheld.contact'),
        follow,
      ]);
    case 'appeal_reversed':
      return render(say('mail.appeal_upheld.subject'), context, [
        say('mail.appeal_reversed.reversed', { action }),
        say('mail.reason', { reason }),
        context.dueDate
          ? say('mail.appeal_reversed.complete_by', { due: day(context.dueDate) })
          : say('mail.appeal_reversed.complete_by_law'),
        follow,
      ]);
    case 'canceled':
      return render(say('mail.canceled.subject'), context, [
        say('mail.canceled.canceled', { action }),
        say('mail.reason', { reason }),
        follow,
      ]);
    case 'agent_confirmation':
      return render(say('mail.agent_confirmation.subject'), context, [
        // The name is the agent's own words, never the organisation's: quoted, and said to be theirs.
        say('mail.agent_confirmation.claim', {
          agent: context.agent?.name ?? say('mail.agent_confirmation.someone'),
          organization,
          action,
        }),
        { text: say('mail.agent_confirmation.confirm'), url: page(context.agent?.confirmUrl ?? '') },
        say('mail.agent_confirmation.lifetime', { until: instant(context.agent?.expiresAt) }),
      ]);
    case 'completed': {
      const parts: Part[] = [say('mail.completed.complete', { action })];
      if (context.download) {
        parts.push(
          { text: say('mail.completed.download'), url: page(context.download.url) },
          say('mail.completed.download_until', { until: instant(context.download.expiresAt) }),
        );
      }
      if (context.erased) {
        parts.push(
          context.erased.length === 0 ? say('mail.completed.nothing_to_erase') : say('mail.completed.erased'),
        );
        if (context.erased.length > 0) parts.push({ list: erasureLines(say, context.erased) });
        if (context.recipients && context.recipients.length > 0)
          parts.push(say('mail.completed.recipients'), { list: [...context.recipients] });
      }
      parts.push(follow);
      return render(say('mail.completed.subject'), context, parts);
    }
    case 'respondent_invite': {
      const task = context.task;
      const instructions = task
        ? translatedText(task.instructions, task.translations, language, 'instructions')
        : '';
      return render(say('mail.respondent_invite.subject'), context, [
        say('mail.respondent_invite.asks', { organization, system: task?.systemName ?? '' }),
        ...(instructions ? [instructions] : []),
        { text: say('mail.respondent_invite.answer'), url: page(task?.url ?? '') },
        say('mail.respondent_invite.lifetime', { until: instant(task?.expiresAt) }),
      ]);
    }
    case 'subject_note':
      return render(say('mail.subject_note.subject'), context, [
        say('mail.subject_note.note', { action }),
        context.reason ?? '',
        follow,
      ]);
    case 'task_overdue': {
      const task = context.task;
      return render(say('mail.task_overdue.subject'), context, [
        say('mail.task_overdue.overdue', {
          system: task?.systemName ?? '',
          requestId: context.requestId,
          due: formatDay(language, task?.dueAt ?? new Date()),
        }),
        say('mail.task_overdue.act'),
      ]);
    }
  }
}
