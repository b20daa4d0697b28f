// Runs a DSR policy's rules for one privacy request over every datastore: each registered action type's
// part of the run (src/actions/registry.ts), in registration order, with the policy's rules of that type
// and the request's input for it: consent and corrections first, then access (the package before any
// erasure), then erasure. Safe to run twice for one request: each part is (the package is rewritten, a
// datastore whose erasure already committed is not erased again). It never returns, logs or audits a
// personal value: the summary holds keys and counts only.
import { actionTypes } from '../../actions/registry.ts';
import { policyRepository, type RuleRow } from '../../policies/repository.ts';
import { isStorableRequestId } from './access-package.ts';
import { readRunCatalog } from './run-repository.ts';
import type { RuleRunSummary } from './summary.ts';
import type { RuleRunInput, RuleServices } from './context.ts';
/** Why a rule run could not start; the executor records it as the request's error, never as HTTP. */
export class RuleRunError extends Error {
  override name = 'RuleRunError';
  readonly code: 'unstorable_request_id' | 'unknown_policy';

  constructor(code: RuleRunError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

export async function runPolicyRules(services: RuleServices, input: RuleRunInput): Promise<RuleRunSummary> {
  assertStorable(input.privacyRequestId);
  const policy = await policyRepository.findByKey(services.db, input.policyKey);
  if (!policy) throw new RuleRunError('unknown_policy', `No policy with key ${input.policyKey}.`);
  return runRulesOf(services, input, await policyRepository.rulesOf(services.db, [policy.id]));
}

/** `runPolicyRules` with the policy's rules already read (the executor reads them once per run). */
export async function runRulesOf(
  services: RuleServices,
  input: RuleRunInput,
  rules: readonly RuleRow[],
): Promise<RuleRunSummary> {
  assertStorable(input.privacyRequestId);
  const { datastores, destinations } = await readRunCatalog(services.db);
  const context = {
    privacyRequestId: input.privacyRequestId,
    policyKey: input.policyKey,
    identities: input.identities.filter((identity) => identity.value.trim() !== ''),
    unproven: (input.unproven ?? []).filter((identity) => identity.value.trim() !== ''),
    datastores,
    storageDestinations: destinations,
  };
  const parts: Record<string, unknown> = {};
  for (const definition of actionTypes()) {
    const own = rules.filter((rule) => rule.action_type === definition.name);
    if (own.length > 0)
      parts[definition.summary.key] = await definition.run(
        services,
        context,
        own,
        input.inputs?.[definition.name],
      );
    else if (definition.summary.none !== undefined) parts[definition.summary.key] = definition.summary.none;
  }
  return {
    privacy_request_id: input.privacyRequestId,
    policy_key: input.policyKey,
    datastores,
    ...parts,
  } as RuleRunSummary;
}

function assertStorable(privacyRequestId: string): void {
  if (!isStorableRequestId(privacyRequestId)) {
    throw new RuleRunError(
      'unstorable_request_id',
      'A privacy request id may only hold letters, digits, "_" and "-".',
    );
  }
}
