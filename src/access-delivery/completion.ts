// The completion message of a request, queued in the transaction that completes it. A request with access
// results (its policy's access rules ran, or its access tasks gave data) has a message that carries a
// download link: a random 256-bit token whose SHA-256 alone is stored, valid
// LETHE_ACCESS_PACKAGE_TTL_SECONDS. An erasure request's message says what was erased, by datastore,
// with counts (from the summary the rules step logged).
import { createHash, randomBytes } from 'node:crypto';
import { deletesData, yieldsDownload } from '../actions/registry.ts';
import type { Queryable } from '../db/database.ts';
import { sealMessages } from '../outbox/enqueue.ts';
import type { NewMessage } from '../outbox/repository.ts';
import {
  addressSubjectMessages,
  queueSubjectMessages,
  withMailSlots,
} from '../privacy-requests/messages/subject-messages.ts';
import type { ErasedInDatastore } from '../privacy-requests/messages/templates.ts';
import { downloadUrl } from '../privacy-center-settings/public-url.ts';
import { openIdentity } from '../privacy-requests/identity.ts';
import { logRepository } from '../privacy-requests/log-repository.ts';
import { connectionRepository } from '../connections/repository.ts';
import { privacyRequestRepository, type RequestRow } from '../privacy-requests/repository.ts';
import { stepRepository } from '../privacy-requests/step-repository.ts';
import type { ErasureSummary } from '../privacy-requests/rules/summary.ts';
import type { PolicyEmbed } from '../privacy-requests/view.ts';
import type { Services } from '../services.ts';
import { taskRepository } from '../tasks/repository.ts';
import { accessLinkRepository as repo } from './repository.ts';

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** Sums the erasure rules' counts per datastore, in datastore order. */
export function erasedByDatastore(erasure: readonly ErasureSummary[]): ErasedInDatastore[] {
  const byStore = new Map<string, ErasedInDatastore>();
  for (const rule of erasure) {
    const store = byStore.get(rule.datastore) ?? {
      datastore: rule.datastore,
      entities: 0,
      attributesMasked: 0,
      attributesDeleted: 0,
      filesDeleted: 0,
      entitiesForgotten: 0,
    };
    store.entities = Math.max(store.entities, rule.entities_targeted);
    store.attributesMasked += rule.attributes_masked;
    store.attributesDeleted += rule.attributes_deleted;
    store.filesDeleted += rule.files_deleted;
    store.entitiesForgotten += rule.entities_forgotten;
    byStore.set(rule.datastore, store);
  }
  return [...byStore.values()].sort((a, b) => a.datastore.localeCompare(b.datastore));
}

/**
 * The recipients of a completed erasure (GDPR art. 19): the connections its post-execution webhooks
 * called, by name, in plan order; recorded on the request.
 */
async function recordRecipients(tx: Queryable, id: string): Promise<string[]> {
  const keys = [
    ...new Set(
      (await stepRepository.steps(tx, id)).flatMap((step) =>
        step.kind === 'post' && step.connection_key ? [step.connection_key] : [],
      ),
    ),
  ];
  const names: string[] = [];
  for (const key of keys) names.push((await connectionRepository.find(tx, key))?.name ?? key);
  await privacyRequestRepository.recordRecipientsNotified(tx, id, names);
  return names;
}

/** A completion's download link and message, made ready to be stored with the move that completes. */
export interface PreparedAnnouncement {
  link?: { tokenHash: Buffer; expiresAt: Date };
  messages: NewMessage[];
}

/**
 * `announceCompletion` for a policy that erases nothing, made ready before the request completes so that
 * the statement completing it stores both (preparedMoveRepository.completeAnnouncing): the link's expiry
 * is counted from now by this process's clock, and the message names it. `row` is the request as the
 * completing move leaves it. Undefined when there is no one to tell.
 */
export async function prepareAnnouncement(
  db: Queryable,
  services: Pick<Services, 'keyring' | 'config'>,
  row: RequestRow,
  policy: PolicyEmbed,
): Promise<PreparedAnnouncement | undefined> {
  if (deletesData(policy.rules)) {
    throw new Error('an erasure policy is announced by announceCompletion, in the completing transaction');
  }
  if (!row.identity_sealed) return undefined;
  const email = openIdentity(services.keyring, row.id, row.identity_sealed).email;
  if (!email) return undefined;
  let link: PreparedAnnouncement['link'];
  let download: { url: string; expiresAt: Date } | undefined;
  if (await hasAccessResults(db, row.id, policy)) {
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + services.config.accessPackageTtlSeconds * 1000);
    link = { tokenHash: hashToken(token), expiresAt };
    download = { url: downloadUrl(services.config, token), expiresAt };
  }
  const addressed = await addressSubjectMessages(db, services, [
    { request: row, kind: 'completed', details: { download }, email, policy },
  ]);
  // Its slot of the address's hourly cap is taken now, before the statement that completes the request:
  // should that statement not complete it, the hour counts one mail more, never one less.
  const slotted = await withMailSlots(db, services, addressed);
  return { ...(link ? { link } : {}), messages: sealMessages(services.keyring, slotted) };
}

/**
 * Whether the completed request has access results for the subject to download: its policy's access rules
 * ran (even when they found nothing, the package says so), or its access tasks gave data (a policy with
 * `drp_action: access` and no rules has only those).
 */
async function hasAccessResults(tx: Queryable, id: string, policy: PolicyEmbed): Promise<boolean> {
  return yieldsDownload(policy.rules) || (await taskRepository.hasAccessData(tx, id));
}

/** Queues the completion message of `row`, whose policy the caller has read (the executor, once a run). */
export async function announceCompletion(
  tx: Queryable,
  services: Pick<Services, 'keyring' | 'config'>,
  row: RequestRow,
  policy: PolicyEmbed,
): Promise<void> {
  const erases = deletesData(policy.rules);
  const recipients = erases ? await recordRecipients(tx, row.id) : undefined;
  if (!row.identity_sealed) return;
  const email = openIdentity(services.keyring, row.id, row.identity_sealed).email;
  if (!email) return;
  let download: { url: string; expiresAt: Date } | undefined;
  if (await hasAccessResults(tx, row.id, policy)) {
    const token = randomBytes(32).toString('base64url');
    const expiresAt = await repo.insert(
      tx,
      hashToken(token),
      row.id,
      services.config.accessPackageTtlSeconds,
    );
    download = { url: downloadUrl(services.config, token), expiresAt };
  }
  let erased: ErasedInDatastore[] | undefined;
  if (erases) {
    const summary = (await logRepository.latestRulesSummary(tx, row.id)) as
      { erasure?: ErasureSummary[] } | undefined;
    erased = erasedByDatastore(summary?.erasure ?? []);
  }
  await queueSubjectMessages(tx, services, [
    { request: row, kind: 'completed', details: { download, erased, recipients }, email, policy },
  ]);
}
