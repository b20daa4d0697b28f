// What Lethe tells a data subject when their request changes: the callers are the request's transitions
// (received, verification code, denied, canceled, completed), each inside the transaction that makes the
// change. Here the message is addressed and worded; the outbox only seals and delivers what it is given.
// The recipient is the request's email identity, else the email given on the public side and not (yet)
// verified, where its code went (identity.ts contactEmail); a request without one (or whose identities
// were purged) gets no message. Nothing here sends or logs anything.
import type { Queryable } from '../../db/database.ts';
import { type AddressedMessage, enqueueMessages } from '../../outbox/enqueue.ts';
import type { RequestMessageKind } from '../../outbox/repository.ts';
import { requestStatusUrl } from '../../privacy-center-settings/public-url.ts';
import {
  publishedAction,
  readPrivacyCenterSettings,
  settingsIn,
} from '../../privacy-center-settings/settings.ts';
import type { Services } from '../../services.ts';
import { isLanguage, translate } from '../../i18n/catalogue.ts';
import { takeMailSlots } from '../../outbox/recipient-caps.ts';
import { contactEmail } from '../identity.ts';
import { privacyRequestRepository } from '../repository.ts';
import { loadPolicyEmbeds, type PolicyEmbed } from '../view.ts';
import { type MessageContext, renderMessage } from './templates.ts';

export interface SubjectMessage {
  request: {
    id: string;
    policy_id: string;
    identity_sealed: Uint8Array | null;
    unverified_identity_sealed?: Uint8Array | null;
    /** The language its subject reads; read from the request when the caller did not give it. */
    language?: string | null;
  };
  kind: RequestMessageKind;
  /** What the kind needs besides the request: the code, the reason, the link, the erasure counts. */
  details?: Pick<
    MessageContext,
    | 'code'
    | 'codeTtlMinutes'
    | 'reason'
    | 'download'
    | 'erased'
    | 'dueDate'
    | 'authority'
    | 'appeal'
    | 'task'
    | 'agent'
    | 'recipients'
    | 'timeZone'
    | 'judicialRemedy'
    | 'verifiedByCode'
  >;
  /** The recipient when the caller already holds it opened. */
  email?: string;
  /** The request's policy when the caller has already read it. */
  policy?: Pick<PolicyEmbed, 'id' | 'key' | 'name'>;
}

export async function queueSubjectMessages(
  tx: Queryable,
  services: Pick<Services, 'keyring' | 'config'>,
  messages: readonly SubjectMessage[],
): Promise<number> {
  const addressed = await addressSubjectMessages(tx, services, messages);
  if (addressed.length > 0)
    await enqueueMessages(tx, services.keyring, await withMailSlots(tx, services, addressed));
  return addressed.length;
}

/**
 * The messages, each to a subject's address given its slot of that address's hourly cap, whoever caused it
 * (src/outbox/recipient-caps.ts): one at once while the hour has room, else held in the outbox until it
 * has (`notBefore`); delayed, never dropped. A mail the public can cause was refused at the cap before it
 * was made (refuseAtMailCap), so it goes at once. Staff messages (a respondent's invitation, an overdue
 * task) go to the organisation's own people and count against no subject's cap.
 */
export async function withMailSlots(
  tx: Queryable,
  services: Pick<Services, 'keyring'>,
  addressed: readonly AddressedMessage[],
): Promise<AddressedMessage[]> {
  const toSubjects = addressed.filter((message) => !STAFF_KINDS.has(message.kind as RequestMessageKind));
  const slots = await takeMailSlots(
    tx,
    services.keyring,
    toSubjects.map((message) => message.to),
  );
  const held = new Map(toSubjects.map((message, index) => [message, slots[index]]));
  return addressed.map((message) => {
    const notBefore = held.get(message);
    return notBefore ? { ...message, notBefore } : message;
  });
}

/**
 * The language a message is written in: the request's, for every message to its subject; the
 * organisation's (LETHE_DEFAULT_LANGUAGE) for those to its own people (a manual system's respondent, the
 * operators told of an overdue task), who need not read the subject's language.
 */
function languageOf(
  kind: RequestMessageKind,
  requestLanguage: string | null | undefined,
  defaultLanguage: string,
) {
  if (STAFF_KINDS.has(kind)) return defaultLanguage;
  return isLanguage(requestLanguage) ? requestLanguage : defaultLanguage;
}

const STAFF_KINDS: ReadonlySet<RequestMessageKind> = new Set(['respondent_invite', 'task_overdue']);

/** The messages of `queueSubjectMessages` addressed and worded, for a caller that queues them itself. */
export async function addressSubjectMessages(
  tx: Queryable,
  services: Pick<Services, 'keyring' | 'config'>,
  messages: readonly SubjectMessage[],
): Promise<AddressedMessage[]> {
  const addressed = messages.flatMap((message) => {
    const email = message.email ?? contactEmail(services.keyring, message.request);
    return email ? [{ ...message, email }] : [];
  });
  if (addressed.length === 0) return [];
  const settings = await readPrivacyCenterSettings(tx);
  const unread = addressed.flatMap((message) => (message.policy ? [] : [message.request.policy_id]));
  const policies: Map<string, Pick<PolicyEmbed, 'id' | 'key' | 'name'>> = unread.length > 0
    ? await loadPolicyEmbeds(tx, unread)
    : new Map();
  for (const message of addressed) if (message.policy) policies.set(message.policy.id, message.policy);
  const stored = await privacyRequestRepository.languagesOf(
    tx,
    addressed.flatMap((message) => (message.request.language === undefined ? [message.request.id] : [])),
  );
  return addressed.map((message) => {
    const policy = policies.get(message.request.policy_id);
    const language = languageOf(
      message.kind,
      message.request.language ?? stored.get(message.request.id),
      services.config.defaultLanguage,
    );
    const actionTitle =
      (policy && publishedAction(settingsIn(settings, language), policy.key)?.title) ??
      policy?.name ??
      translate(language, 'mail.default_action');
    const rendered = renderMessage(message.kind, {
      language,
      organizationName: settings.organization_name,
      actionTitle,
      requestId: message.request.id,
      statusUrl: requestStatusUrl(services.config, message.request.id),
      ...message.details,
    });
    return { privacyRequestId: message.request.id, kind: message.kind, to: message.email, ...rendered };
  });
}
