// What Lethe tells a data subject when their request changes: the callers are the request's transitions
// (received, verification code, denied, canceled, completed), each inside the transaction that makes the
// change. Here the message is addressed and worded; the outbox only seals and delivers what it is given.
// The recipient is the request's email identity, else the email given on the public side and not (yet)
// verified, where its code went (identity.ts contactEmail); a request without one (or whose identities
// were purged) gets no message. Nothing here sends or logs anything.
import type { Queryable } from '../../db/database.ts';
import { type AddressedMessage, enqueueMessages } from '../../outbox/enqueue.ts';
import type { MessageKind } from '../../outbox/repository.ts';
import { requestStatusUrl } from '../../privacy-center-settings/public-url.ts';
import { publishedAction, readPrivacyCenterSettings } from '../../privacy-center-settings/settings.ts';
import type { Services } from '../../services.ts';
import { contactEmail } from '../identity.ts';
import { loadPolicyEmbeds, type PolicyEmbed } from '../view.ts';
import { type MessageContext, renderMessage } from './templates.ts';

export interface SubjectMessage {
  request: {
    id: string;
    policy_id: string;
    identity_sealed: Uint8Array | null;
    unverified_identity_sealed?: Uint8Array | null;
  };
  kind: MessageKind;
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
  if (addressed.length > 0) await enqueueMessages(tx, services.keyring, addressed);
  return addressed.length;
}

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
  return addressed.map((message) => {
    const policy = policies.get(message.request.policy_id);
    const actionTitle =
      (policy && publishedAction(settings, policy.key)?.title) ?? policy?.name ?? 'privacy request';
    const rendered = renderMessage(message.kind, {
      organizationName: settings.organization_name,
      actionTitle,
      requestId: message.request.id,
      statusUrl: requestStatusUrl(services.config, message.request.id),
      ...message.details,
    });
    return { privacyRequestId: message.request.id, kind: message.kind, to: message.email, ...rendered };
  });
}
