// Trust is a type (docs/decisions.md#whom-lethe-acts-for, CONVENTIONS.md 20). A value that selects whose data
// a rule run reads or erases, whose consent is written, whose attributes are corrected, is a
// `TrustedIdentity`, and only proof makes one: each way of proving has its own function here, and the lint
// rule `lethe/trusted-identity` (tools/eslint-trusted-identity.js) lets only its proving module import it
// and nothing else cast to the type. The request's trusted set is sealed only from this type
// (identity.ts's sealIdentity) and opens as it, so what was proved once stays proved; every other value a
// request carries is an `Identity`, kept as its unverified identity, shown as unproven and never matched.
// A new way in that forgets proof does not compile. Nothing here reads the store or logs a value.
import type { TrustedMatch } from '../datastore/trusted-match.ts';
import {
  type DerivedIdentity,
  type Identity,
  mergeIdentity,
  splitProved,
  type TrustedIdentity,
  typedIdentities,
} from './identity.ts';

export type { TrustedIdentity } from './identity.ts';
export type { TrustedMatch } from '../datastore/trusted-match.ts';

/** What a proof splits a request's given values into: the proved, and the rest (still unverified). */
export interface Proved {
  trusted: TrustedIdentity;
  unproven: Identity;
}

const minted = (identity: Identity) => identity as TrustedIdentity;

function prove(given: Identity, keys: readonly string[]): Proved {
  const { trusted, unproven } = splitProved(given, keys);
  return { trusted: minted(trusted), unproven };
}

/** Nothing proved yet (a public request before its code): matches nothing. Anyone may hold it. */
export const NOTHING_PROVED: TrustedIdentity = minted({});

/** The mailed code reached the email (src/verification/): it alone; a phone typed beside it stays unproven. */
export function provedByCode(given: Identity): Proved {
  return prove(given, ['email']);
}

/**
 * The subject's confirm-agent link reached the address it was mailed to (src/agents/): that address alone,
 * nothing else the agent typed beside it.
 */
export function provedByAgentConfirmation(given: Identity): Proved {
  return prove(given, ['email']);
}

/**
 * An operator accepted an agent's power of attorney (src/agents/), naming the identity keys the document
 * establishes: those and the subject's address.
 */
export function establishedByPowerOfAttorney(given: Identity, keys: readonly string[]): Proved {
  return prove(given, ['email', ...keys]);
}

/** An operator made the request with a management token (src/privacy-requests/service.ts): all of it. */
export function givenByOperator(identity: Identity): TrustedIdentity {
  return minted(identity);
}

/** A two_way webhook, which the operator configured, derived more identities of the same subject. */
export function derivedByWebhook(known: TrustedIdentity, derived: DerivedIdentity): TrustedIdentity {
  return minted(mergeIdentity(known, derived));
}

/** The trusted identities with their kinds, as a run, a consent write or a correction matches them. */
export function trustedMatches(identity: TrustedIdentity): TrustedMatch[] {
  return typedIdentities(identity) as TrustedMatch[];
}
