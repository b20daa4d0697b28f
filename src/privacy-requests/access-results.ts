// The engine's seam to the rule runner (src/privacy-requests/rule-runner.ts, owned by the rules work):
// the rules step of a request and its access package. The runner is loaded on first use so that the
// engine runs, and says so in the request's log, on an installation built without it.
import type { Services } from '../runtime/services.ts';

type RuleServices = Pick<Services, 'db' | 'keyring' | 'config'>;

interface RuleRunner {
  runPolicyRules(
    services: RuleServices,
    input: { privacyRequestId: string; policyKey: string; identityValues: string[] },
  ): Promise<unknown>;
  readAccessPackage(services: RuleServices, privacyRequestId: string): Promise<unknown>;
}

const RUNNER_MODULE = './rule-runner.ts';
let runner: Promise<RuleRunner | undefined> | undefined;

function loadRunner(): Promise<RuleRunner | undefined> {
  runner ??= (import(RUNNER_MODULE) as Promise<RuleRunner>).catch((error: { code?: string }) => {
    if (error.code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  });
  return runner;
}

/** The summary of the rules run for the log, or undefined when no rule runner is installed. */
export async function runRules(
  services: RuleServices,
  input: { privacyRequestId: string; policyKey: string; identityValues: string[] },
): Promise<{ summary: unknown } | undefined> {
  const loaded = await loadRunner();
  if (!loaded) return undefined;
  return { summary: await loaded.runPolicyRules(services, input) };
}

export async function readAccessResults(services: RuleServices, privacyRequestId: string): Promise<unknown> {
  const loaded = await loadRunner();
  if (!loaded) return null;
  return (await loaded.readAccessPackage(services, privacyRequestId)) ?? null;
}
