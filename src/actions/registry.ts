// The action types of DSR rules (access, erasure, consent, update, and the next one), registered once. Each
// type is one module that says everything about it: what a rule of it takes, what a request of it gives
// (its input's schema, its checks, how it is sealed and opened), its part of the rule run and of the run's
// summary, whether it waits for a person, whether it yields a download, and its records category. The
// modules register themselves at start (src/runtime/features.ts); the policy schema and its checks, the rule
// runner, intake, approval, completion, the request's view, the records and the console's rule form
// (GET /v1/action-type) read this registry, so an action type is added by one module and one line of
// registration (docs/rule-execution.md, "Adding an action type"). Like src/masking/strategies.ts, nothing
// here reads the store or logs a value; unlike it, the types' parts live beside the code they run.
import type Type from 'typebox';
import type { Config } from '../config.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Database, Queryable } from '../db/database.ts';
import type { Wording } from '../errors.ts';
import type { TypedIdentity } from '../datastore/identity-attributes.ts';
import type { TrustedMatch } from '../datastore/trusted-match.ts';

/** The category a request of this action is counted under in the records (CCPA regs §7102). */
export type RecordsCategory = 'know' | 'delete' | 'opt_out' | 'correct';

/** A rule as the run reads it (src/policies/repository.ts's RuleRow). */
export interface ActionRule {
  id: string;
  policy_id: string;
  key: string;
  name: string;
  action_type: string;
  masking_strategy: { strategy: string; configuration: Record<string, unknown> } | null;
  storage_destination_id: string | null;
  storage_destination_key: string | null;
  targets: string[];
}

export interface ActionServices {
  db: Database;
  keyring: Keyring;
  config: Config;
}

/** What one run of a request's rules works with. */
export interface RunContext {
  privacyRequestId: string;
  policyKey: string;
  /**
   * The request's trusted identities (none empty), each matched only through attributes of its kind: a
   * TrustedMatch, which only a proof makes (src/privacy-requests/trusted-identity.ts).
   */
  identities: TrustedMatch[];
  /** Its unverified identities (none empty): never matched; a consent rule records opt-outs for them only. */
  unproven: TypedIdentity[];
  /** Every datastore's name, in name order. */
  datastores: string[];
  /** Where access packages may be stored, in key order. */
  storageDestinations: { id: string; key: string; type: string; location: string }[];
}

/** What a request's row keeps of its actions' inputs, as intake writes them. */
export interface StoredInputs {
  consentPreferences?: readonly { data_use: string; opt_in: boolean }[];
  correctionsSealed?: Buffer;
}

/** The columns of a request's row that hold its actions' inputs. */
export interface InputColumns {
  id: string;
  consent_preferences: { data_use: string; opt_in: boolean }[];
  corrections_sealed: Uint8Array | null;
}

/**
 * A refusal of an input with the words a subject reads it in on a public page (src/i18n/): for a refusal
 * whose sentence must not depend on anything but what the caller gave (the corrections' one wording).
 */
export interface InputRefusal {
  message: string;
  wording?: Wording;
}

/** What a request of this action gives beside its identity: a field of the request item. */
export interface ActionInput<Input> {
  /** The request item's field (also the public form's). */
  field: string;
  schema: Type.TSchema;
  /**
   * Why `value` cannot go with a request of a policy with `rules`, in a sentence, or undefined. Asked of
   * every request, whatever its policy: an input given to a policy without the action is a mistake too.
   */
  problem(
    db: Queryable,
    policyKey: string,
    rules: readonly { action_type: string; targets: readonly string[] }[],
    value: Input | undefined,
  ): Promise<string | InputRefusal | undefined>;
  /** What the request's row keeps of a value that passed `problem` (sealed when it is personal). */
  store(keyring: Keyring, requestId: string, value: Input): StoredInputs;
  /** The value as the run and the callbacks read it back. */
  open(keyring: Keyring, row: InputColumns): Input;
  /** What the callbacks' body carries of it beside the request (nothing when absent). */
  inCallback?(value: Input): Record<string, unknown>;
}

export interface ActionDefinition<Input = unknown, Summary = unknown> {
  name: string;
  /** One sentence for the console's rule form and GET /v1/action-type. */
  description: string;
  /**
   * Which of a request's actions names it (the view's action, Fides' policy_action, the records): the
   * highest rank. A receiver must not miss that data goes away, so erasure ranks highest.
   */
  rank: number;
  category: RecordsCategory;
  /** What a rule of this type takes besides its name and key. */
  /**
   * `namedTargets`: its rules must name their targets (`<table>.<attribute>` or `<table>.*`, never `*`):
   * they publish what a request may touch (the update rule's correctable attributes).
   */
  rule: { storageDestination: boolean; maskingStrategy: boolean; targets: boolean; namedTargets?: boolean };
  input?: ActionInput<Input>;
  /** Whether a request with this action waits for an operator's approval. */
  needsPerson(
    request: { client_id: string | null },
    config: Pick<Config, 'publicErasureAutoApprove'>,
  ): boolean;
  /** Whether the subject of a completed request of this action gets a download link. */
  yieldsDownload: boolean;
  /**
   * Its part of the rule run, given the policy's rules of this type (at least one) and the request's input
   * for it (undefined when the run was started without it: a run from the command line, a test).
   */
  run(
    services: ActionServices,
    context: RunContext,
    rules: readonly ActionRule[],
    input: Input | undefined,
  ): Promise<Summary>;
  /** Its part of the run's summary: under `key`, and `none` when the policy has no rule of it (else left out). */
  summary: { key: string; none?: Summary };
}

/** Keeps a definition's input and summary types checked where it is written. */
export const defineAction = <Input, Summary>(definition: ActionDefinition<Input, Summary>) =>
  definition as unknown as ActionDefinition;

const registered = new Map<string, ActionDefinition>();
let changes = 0;

/** Registers an action type (again: replaces it in place). The run runs the types in registration order. */
/** An action type's name, as rules.action_type keeps it (migration 031 checks the same shape). */
const NAME_SHAPE = /^[a-z][a-z_]{0,39}$/;

export function registerActionType(definition: ActionDefinition): void {
  if (!NAME_SHAPE.test(definition.name)) throw new Error(`An action type's name must match ${NAME_SHAPE}.`);
  registered.set(definition.name, definition);
  noteRegistration();
}

/** Marks every value built `fromRegistry` as stale: a registration (here, or of lifecycle hooks) changed it. */
export function noteRegistration(): void {
  changes += 1;
}

/** Every registered action type, in registration order (the run's order and the console's menu). */
export function actionTypes(): ActionDefinition[] {
  return [...registered.values()];
}

export function actionTypeNames(): string[] {
  return [...registered.keys()];
}

export function actionType(name: string): ActionDefinition | undefined {
  return registered.get(name);
}

/** A value built from the registries (a schema, a validator), built again only after a registration. */
export function fromRegistry<T>(build: () => T): () => T {
  let builtAt = -1;
  let value: T;
  return () => {
    if (builtAt !== changes) {
      value = build();
      builtAt = changes;
    }
    return value;
  };
}

const byRank = () => actionTypes().sort((a, b) => b.rank - a.rank);

/** The action that names a request whose policy has rules of `names`: the highest ranked; null for none. */
export function weightiestAction(names: Iterable<string>): string | null {
  const present = new Set(names);
  return byRank().find((definition) => present.has(definition.name))?.name ?? null;
}

/** `weightiestAction` in SQL: `hasRule(name)` is the condition that the request's policy has a rule of it. */
export function weightiestActionSql(hasRule: (name: string) => string, otherwise: string): string {
  const cases = byRank().map(
    (definition) => `WHEN ${hasRule(definition.name)} THEN '${definition.name.replaceAll("'", "''")}'`,
  );
  return cases.length === 0 ? otherwise : `CASE ${cases.join(' ')} ELSE ${otherwise} END`;
}

const definitionsOf = (rules: readonly { action_type: string }[]) =>
  rules.flatMap((rule) => actionType(rule.action_type) ?? []);

/** Whether a request of a policy with `rules` waits for an operator's approval. */
export function needsPerson(
  rules: readonly { action_type: string }[],
  request: { client_id: string | null },
  config: Pick<Config, 'publicErasureAutoApprove'>,
): boolean {
  return definitionsOf(rules).some((definition) => definition.needsPerson(request, config));
}

/** Whether a completed request of a policy with `rules` has a download for its subject. */
export function yieldsDownload(rules: readonly { action_type: string }[]): boolean {
  return definitionsOf(rules).some((definition) => definition.yieldsDownload);
}

/** Whether a policy with `rules` deletes data (records category `delete`): its recipients must be told. */
export function deletesData(rules: readonly { action_type: string }[]): boolean {
  return definitionsOf(rules).some((definition) => definition.category === 'delete');
}

/** The names of the registered types counted under `category` (the clock's opt-outs, the excess of requests to know). */
export function actionTypesIn(category: RecordsCategory): string[] {
  return actionTypes()
    .filter((definition) => definition.category === category)
    .map((definition) => definition.name);
}

/** The registered types that take an input from the request. */
export function actionInputs(): { name: string; input: ActionInput<unknown> }[] {
  return actionTypes().flatMap((definition) =>
    definition.input ? [{ name: definition.name, input: definition.input }] : [],
  );
}

/**
 * The registry as GET /v1/action-type shows it, in registration order: what a rule of each type takes,
 * the request field it reads, whether its requests wait for a person (from the public, from an operator's
 * client, under this installation's configuration), whether they yield a download, and the records category.
 */
export function describeActionTypes(config: Pick<Config, 'publicErasureAutoApprove'>) {
  return actionTypes().map((definition) => ({
    name: definition.name,
    description: definition.description,
    rank: definition.rank,
    records_category: definition.category,
    rule: {
      storage_destination: definition.rule.storageDestination,
      masking_strategy: definition.rule.maskingStrategy,
      targets: definition.rule.targets,
    },
    request_field: definition.input?.field ?? null,
    needs_person: {
      public: definition.needsPerson({ client_id: null }, config),
      operator: definition.needsPerson({ client_id: 'operator' }, config),
    },
    yields_download: definition.yieldsDownload,
  }));
}
