// What a rule run works with: its input (the request, the policy, the identities to match, each action's
// input), the run's context (src/actions/registry.ts), the services it may use and a rule's masking
// strategy. Shared by the runner and the action types' parts of the run.
import type { RunContext } from '../../actions/registry.ts';
import type { TypedIdentity } from '../../datastore/identity-attributes.ts';
import type { Services } from '../../services.ts';
import type { TrustedMatch } from '../trusted-identity.ts';

export type { RunContext };

export interface RuleRunInput {
  privacyRequestId: string;
  policyKey: string;
  /** The request's trusted identities, each matched only through attributes of its kind. */
  identities: TrustedMatch[];
  /**
   * The request's unverified identities: never matched; only an opt-out may be recorded for them (an
   * opt-out gives nobody data and erases nothing, CCPA §7026(d)).
   */
  unproven?: TypedIdentity[];
  /** Each action type's input, opened, under the type's name (consent: the preferences; update: corrections). */
  inputs?: Record<string, unknown>;
}

export type RuleServices = Pick<Services, 'db' | 'keyring' | 'config'>;

export interface MaskingStrategy {
  strategy: string;
  configuration: Record<string, unknown>;
}
