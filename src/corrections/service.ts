// Corrections (GDPR art. 16, docs/decisions.md#more-ways-in). A request of a policy with an `update` rule
// carries `corrections` ([{attribute: "<table>.<attribute>", value}]), each checked against the attributes
// its update rules publish (their targets: docs/decisions.md#whom-lethe-acts-for); it always waits for an
// operator, who reviews the before/after of every matched entity and approves. The run writes the values
// through the subject store's own update function (sealed like every value) and audits each datastore's
// change with the request as actor, without the values. Never logs a value.
import type { InputRefusal } from '../actions/registry.ts';
import { recordAudit } from '../audit/audit-log.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Database, Queryable } from '../db/database.ts';
import { matchedSubtrees } from '../datastore/identity-match.ts';
import type { SubjectEntity } from '../datastore/subject-store.ts';
import { listDatastoreNames } from '../datastore/subject-store.ts';
import { setAttributeValues } from '../datastore/subject-writes.ts';
import { NOTHING_PROVED, type TrustedMatch, trustedMatches } from '../privacy-requests/trusted-identity.ts';
import type { CorrectionPreview } from './schemas.ts';
import { type Correction, openCorrections } from './sealing.ts';
import { openIdentity } from '../privacy-requests/identity.ts';
import { privacyRequestRepository } from '../privacy-requests/repository.ts';

/** The rule action that writes corrections. */
export const UPDATE_ACTION_TYPE = 'update';
export const CORRECTION_AUDIT_ACTION = 'privacy-request.correction';

export function hasUpdateRule(rules: readonly { action_type: string }[]): boolean {
  return rules.some((rule) => rule.action_type === UPDATE_ACTION_TYPE);
}

const split = (attribute: string) => {
  const dot = attribute.indexOf('.');
  return { table: attribute.slice(0, dot), attribute: attribute.slice(dot + 1) };
};

/**
 * The attributes a policy's update rules publish for correction: their targets, each `<table>.<attribute>`
 * or `<table>.*` (the policy service refuses an update rule without them, and `*`).
 */
function publishedTargets(rules: readonly { action_type: string; targets: readonly string[] }[]) {
  return new Set(rules.flatMap((rule) => (rule.action_type === UPDATE_ACTION_TYPE ? rule.targets : [])));
}

/** Whether `attribute` (`<table>.<attribute>`) is published by `published`: named, or its table's `*`. */
function isPublished(published: ReadonlySet<string>, attribute: string): boolean {
  return published.has(attribute) || published.has(`${split(attribute).table}.*`);
}

/**
 * Why `corrections` cannot go with a request of a policy with `rules`, or undefined: an update rule needs
 * corrections, corrections need an update rule, and each must name an attribute one of its update rules
 * publishes (its targets). The check reads the rules the caller already holds and no store table: an
 * attribute not published gets the one refusal whether or not any datastore holds it (no schema oracle),
 * and a call costs the same whatever the datastores hold.
 */
export async function correctionsProblem(
  _db: Queryable,
  policyKey: string,
  rules: readonly { action_type: string; targets: readonly string[] }[],
  corrections: readonly Correction[] | undefined,
): Promise<string | InputRefusal | undefined> {
  const given = corrections !== undefined && corrections.length > 0;
  if (hasUpdateRule(rules) && !given)
    return `corrections is required: policy ${policyKey} corrects data, so name at least one attribute (<table>.<attribute>) and its right value.`;
  if (!given) return undefined;
  if (!hasUpdateRule(rules))
    return `corrections applies only to a policy with an update rule; ${policyKey} has none.`;
  const published = publishedTargets(rules);
  const refused = corrections.find((correction) => !isPublished(published, correction.attribute));
  return refused ? notCorrectable(refused.attribute) : undefined;
}

/**
 * The corrections the rules publish now: a run writes only those, so narrowing an update rule's targets
 * after a request arrived narrows what its run writes.
 */
export function publishedCorrections(
  rules: readonly { action_type: string; targets: readonly string[] }[],
  corrections: readonly Correction[],
): Correction[] {
  const published = publishedTargets(rules);
  return corrections.filter((correction) => isPublished(published, correction.attribute));
}

/** The one refusal of a correction to an attribute no update rule publishes, existing or not. */
export function notCorrectable(attribute: string): InputRefusal {
  return {
    message: `${attribute} cannot be corrected here.`,
    wording: { key: 'refusal.correction_not_published', values: { attribute } },
  };
}

/** The values the corrections write into one matched tree: the entities of each table that hold the attribute. */
function changesIn(entities: readonly SubjectEntity[], corrections: readonly Correction[]) {
  return corrections.flatMap((correction) => {
    const { table, attribute } = split(correction.attribute);
    return entities
      .filter((entity) => entity.name === table)
      .flatMap((entity) => {
        const held = entity.attributes.find((candidate) => candidate.name === attribute);
        return held
          ? [
              {
                entity,
                name: attribute,
                before: held.value,
                after: correction.value,
                target: correction.attribute,
              },
            ]
          : [];
      });
  });
}

/**
 * The preview of request `id`'s corrections (undefined when it asks for none): its identity and its
 * corrections opened here, by their owners, so the route never holds a key.
 */
export async function previewRequestCorrections(
  services: { db: Queryable; keyring: Keyring },
  id: string,
): Promise<CorrectionPreview | undefined> {
  const row = await privacyRequestRepository.find(services.db, id);
  if (!row?.corrections_sealed) return undefined;
  const identity = row.identity_sealed
    ? openIdentity(services.keyring, row.id, row.identity_sealed)
    : NOTHING_PROVED;
  return previewCorrections(
    services.db,
    services,
    trustedMatches(identity),
    openCorrections(services.keyring, row.id, row.corrections_sealed),
  );
}

/** What approving would write now, entity by entity: for the operator's review. */
export async function previewCorrections(
  db: Queryable,
  services: { keyring: Keyring },
  identities: readonly TrustedMatch[],
  corrections: readonly Correction[],
): Promise<CorrectionPreview> {
  const changes: CorrectionPreview['changes'] = [];
  if (identities.length > 0 && corrections.length > 0) {
    for (const datastore of await listDatastoreNames(db)) {
      const tree = await matchedSubtrees(db, services, datastore, identities);
      for (const change of changesIn(tree, corrections)) {
        changes.push({
          datastore,
          entity_id: change.entity.id,
          attribute: change.target,
          before: change.before,
          after: change.after,
        });
      }
    }
  }
  return { corrections: [...corrections], changes };
}

/**
 * Writes the corrections to every datastore's matched entities, each datastore in one transaction with
 * its audit entry (names and counts, never a value). Writing the same values again is harmless, so a
 * rerun needs no guard. Answers how many values were written.
 */
export async function applyCorrections(
  services: { db: Database; keyring: Keyring },
  privacyRequestId: string,
  datastores: readonly string[],
  identities: readonly TrustedMatch[],
  corrections: readonly Correction[],
): Promise<number> {
  let written = 0;
  for (const datastore of datastores) {
    written += await services.db.transaction(async (tx) => {
      const changes = changesIn(await matchedSubtrees(tx, services, datastore, identities), corrections);
      if (changes.length === 0) return 0;
      const count = await setAttributeValues(
        tx,
        services.keyring,
        datastore,
        changes.map((change) => ({ entityId: change.entity.id, name: change.name, value: change.after })),
      );
      await recordAudit(tx, {
        action: CORRECTION_AUDIT_ACTION,
        datastore,
        entityIds: [...new Set(changes.map((change) => change.entity.id))],
        actor: privacyRequestId,
        requestId: privacyRequestId,
        details: { attributes: [...new Set(changes.map((change) => change.target))], values_written: count },
      });
      return count;
    });
  }
  return written;
}
