// Disclosures (GDPR art. 15(1), docs/decisions.md#more-ways-in): what the organisation tells a subject about
// each datastore, and about each connection whose receiver holds their data (purposes, recipients,
// retention, source, automated decisions), set by operators (audited) and carried by every access report.
// A datastore or connection without one gets the empty disclosure, shown as "not stated".
import { type ChangeActor, recordChange } from '../audit/audit-log.ts';
import { connectionRepository } from '../connections/repository.ts';
import type { Database, Queryable } from '../db/database.ts';
import { datastoreRepository } from '../datastore/admin-repository.ts';
import { notFound } from '../errors.ts';
import { webhookRepository } from '../webhooks/repository.ts';
import { type DisclosureKind, disclosureRepository } from './repository.ts';
import type { Disclosure, DisclosureView } from './schemas.ts';

export const EMPTY_DISCLOSURE: DisclosureView = {
  purposes: [],
  recipients: [],
  retention: '',
  source: '',
  automated_decisions: '',
  updated_at: null,
};

async function assertExists(db: Queryable, kind: DisclosureKind, name: string): Promise<void> {
  const exists =
    kind === 'datastore'
      ? await datastoreRepository.exists(db, name)
      : (await connectionRepository.find(db, name)) !== undefined;
  if (!exists) throw notFound(`No ${kind} named ${name}.`);
}

export async function readDisclosure(
  db: Queryable,
  kind: DisclosureKind,
  name: string,
): Promise<DisclosureView> {
  await assertExists(db, kind, name);
  return (await disclosureRepository.of(db, kind, [name])).get(name) ?? EMPTY_DISCLOSURE;
}

export async function putDisclosure(
  db: Database,
  by: ChangeActor,
  kind: DisclosureKind,
  name: string,
  disclosure: Disclosure,
): Promise<DisclosureView> {
  return db.transaction(async (tx) => {
    await assertExists(tx, kind, name);
    const saved = await disclosureRepository.put(tx, kind, name, {
      purposes: disclosure.purposes.map((purpose) => purpose.trim()),
      recipients: disclosure.recipients.map((recipient) => recipient.trim()),
      retention: disclosure.retention.trim(),
      source: disclosure.source?.trim() ?? '',
      automated_decisions: disclosure.automated_decisions?.trim() ?? '',
    });
    await recordChange(tx, by, `${kind}.disclosure.update`, {
      [kind]: name,
      purposes: saved.purposes.length,
      recipients: saved.recipients.length,
    });
    return saved;
  });
}

/** The disclosures of a report: of each datastore named, and of the connections of the policy's webhooks. */
export async function reportDisclosures(
  db: Queryable,
  datastores: readonly string[],
  policyId: string | undefined,
): Promise<{ datastores: Map<string, DisclosureView>; connections: Map<string, DisclosureView> }> {
  const connectionKeys = policyId
    ? [
        ...new Set(
          (await webhookRepository.webhooksOfPolicy(db, policyId)).flatMap((webhook) =>
            webhook.connection_key ? [webhook.connection_key] : [],
          ),
        ),
      ]
    : [];
  return {
    datastores: await disclosureRepository.of(db, 'datastore', datastores),
    connections: await disclosureRepository.of(db, 'connection', connectionKeys),
  };
}
