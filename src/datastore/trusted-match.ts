// The mark a proof puts on an identity. Only src/privacy-requests/trusted-identity.ts makes marked values
// (the lint rule `trust/trusted-identity` refuses a cast anywhere else); the mark lives here, beside the
// identity kinds the store matches, so that the store and the action types below the request core can
// name what they accept without importing the core.
import type { TypedIdentity } from './identity-attributes.ts';

declare const proof: unique symbol;

/** What only a proof adds to a value. */
export type ProofMark = { readonly [proof]: 'proved' };

/** One trusted identity with its kind, as the run matches it (src/datastore/identity-match.ts). */
export type TrustedMatch = TypedIdentity & ProofMark;
