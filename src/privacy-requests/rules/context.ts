// What a rule run works with: its input (the request, the policy, the identities to match), the run's
// context, the services it may use and a rule's masking strategy. Shared by the runner and the erasure.
import type { TypedIdentity } from '../../datastore/identity-attributes.ts';
import type { Services } from '../../services.ts';

export interface RuleRunInput {
  privacyRequestId: string;
  policyKey: string;
  /** The request's trusted identities, each matched only through attributes of its kind. */
  identities: TypedIdentity[];
  /** What a consent rule records for each identity (the request's `consent_preferences`). */
  consentPreferences?: readonly { data_use: string; opt_in: boolean }[];
  /** What an update rule writes (the request's corrections, opened). */
  corrections?: readonly { attribute: string; value: string }[];
}

export type RuleServices = Pick<Services, 'db' | 'keyring' | 'config'>;

export interface MaskingStrategy {
  strategy: string;
  configuration: Record<string, unknown>;
}

export interface RunContext extends RuleRunInput {
  datastores: string[];
}
