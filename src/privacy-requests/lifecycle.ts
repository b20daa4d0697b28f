// The moments of a privacy request that the features around the core take part in: at its receipt, after
// its rules ran, on its completion, on its cancel, on each change of its status, on a change that moves no
// status (an extension, an appeal), in the periodic sweep, in the stuck flag and in its access results.
// Tasks, access delivery, verification, agents and events register their
// hooks at start (src/runtime/features.ts; consent and corrections take part as action types); the core calls the hooks and never names a feature (a lint zone of
// eslint.config.js keeps it so). A hook runs in the transaction of the change it hears of, with the request's
// facts, or joins the very statement that makes the change (a StatementShare): so what it writes commits if
// and only if the change does, and a change made by one statement stays one statement.
import type Type from 'typebox';
import { noteRegistration } from '../actions/registry.ts';
import type { ChangeActor } from '../audit/audit-log.ts';
import type { Queryable } from '../db/database.ts';
import type { PolicyWithRulesAsRead } from '../policies/repository.ts';
import type { Services } from '../services.ts';
import type { PolicyEmbed, RequestRow } from './facts.ts';
import type { Status } from './statuses.ts';

export type HookServices = Pick<Services, 'db' | 'keyring' | 'config' | 'queue'>;
export type NoticeServices = Pick<Services, 'db' | 'keyring' | 'config'>;

/**
 * SQL that joins the statement making a change: data-modifying statements (INSERT, UPDATE, DELETE) that read
 * the changed requests from the relation `changed` (the rows of privacy_requests as the change left them);
 * `param` adds a parameter and answers its placeholder. The statement runs each as a CTE of its own.
 */
export type StatementShare = (changed: string, param: (value: unknown) => string) => string[];

/** What a request waits for after its rules ran (manual tasks): the move to requires_input opens it. */
export interface PendingWork {
  /** For the request's log: "2 manual task(s)". */
  description: string;
  /** Stores the work in the transaction that moves the request to requires_input; answers how much is open. */
  open(tx: Queryable): Promise<number>;
}

/** A feature's part of a request's completion. */
export interface CompletionHook {
  /**
   * Read before the request completes: this hook's share of the statement that completes it (undefined:
   * nothing to add), or null when its work needs the completing transaction (then `complete` runs in it,
   * and the completion is a transaction instead of one statement).
   */
  prepare(
    db: Queryable,
    services: HookServices,
    facts: { row: RequestRow; policy: PolicyEmbed },
  ): Promise<StatementShare | null | undefined>;
  /** In the completing transaction, when some hook asked for it; `row` is the completed request. */
  complete(
    tx: Queryable,
    services: HookServices,
    facts: { row: RequestRow; policy: PolicyEmbed },
  ): Promise<void>;
}

/** A field of the management API's request item that a feature keeps at receipt (an authorized agent). */
export interface ReceiptField {
  field: string;
  schema: Type.TSchema;
  /** What the stored request's submitted_by says when the field is given. */
  submittedBy?: string;
  /** In the receiving transaction, once the request is stored, when the field was given. */
  received(
    tx: Queryable,
    services: HookServices,
    facts: { row: RequestRow; value: unknown; by: ChangeActor },
  ): Promise<void>;
}

/** A change of a request that moves no status, as the features hear of it. */
export type RequestNotice =
  | { kind: 'extended'; dueAt: Date }
  | { kind: 'appeal_submitted'; dueAt: Date }
  | { kind: 'appeal_decided'; outcome: 'upheld' | 'reversed' };

export interface LifecycleHooks {
  receipt?: ReceiptField;
  /** Read after the rules ran, before the request moves on: work it must wait for, if any. */
  afterRules?(
    db: Queryable,
    services: HookServices,
    facts: { row: RequestRow; policy: PolicyWithRulesAsRead },
  ): Promise<PendingWork | undefined>;
  completion?: CompletionHook;
  /** In the transaction that cancels the request (`row` as it was before). */
  onCancel?(tx: Queryable, services: HookServices, facts: { row: RequestRow; by: string }): Promise<void>;
  /** In the transaction of a change that moves no status (`row` as it was before the change). */
  onNotice?(
    tx: Queryable,
    services: NoticeServices,
    facts: { row: RequestRow; notice: RequestNotice },
  ): Promise<void>;
  /** Joins every statement that moves requests from `from` (null: received) to `to`. */
  onStatusChange?(change: { from: Status | null; to: Status }): StatementShare | undefined;
  /** One pass of the periodic sweep (src/privacy-requests/engine/worker.ts), after the core's own. */
  sweep?(services: HookServices): Promise<void>;
  /** An SQL condition that makes the request `requestId` (an SQL expression) stuck (docs/human-steps.md). */
  stuckWhen?(requestId: string): string;
  /** The `stuck_reason` a request stuck by stuckWhen shows (default: the feature's name), e.g. task_overdue. */
  stuckReason?: string;
  /** What the feature adds to a request's access results (src/privacy-requests/rules/access-package.ts). */
  accessResults?(
    services: Pick<Services, 'db' | 'keyring'>,
    requestId: string,
  ): Promise<Record<string, unknown> | undefined>;
}

const registered = new Map<string, LifecycleHooks>();

/** Registers a feature's hooks under its name (again: replaces them). Hooks run in registration order. */
export function registerLifecycleHooks(feature: string, hooks: LifecycleHooks): void {
  registered.set(feature, hooks);
  noteRegistration();
}

/** The registered hooks of one moment, in registration order. */
export function hooksOf<Moment extends keyof LifecycleHooks>(
  moment: Moment,
): NonNullable<LifecycleHooks[Moment]>[] {
  return [...registered.values()].flatMap((hooks) => (hooks[moment] ? [hooks[moment]] : []));
}

/** The registered stuck conditions, each with the reason a request it holds shows. */
export function stuckConditions(): { reason: string; when: (requestId: string) => string }[] {
  return [...registered.entries()].flatMap(([feature, hooks]) =>
    hooks.stuckWhen ? [{ reason: hooks.stuckReason ?? feature, when: hooks.stuckWhen }] : [],
  );
}

/** Tells every registered notice hook of `notice`, in the transaction `tx` of the change. */
export async function noticeChange(
  tx: Queryable,
  services: NoticeServices,
  row: RequestRow,
  notice: RequestNotice,
): Promise<void> {
  for (const hook of hooksOf('onNotice')) await hook(tx, services, { row, notice });
}

/**
 * The shares every registered status-change hook adds to a statement moving requests from `from` to `to`,
 * as CTEs (", name AS (...)") that read `changed`; `params` is the statement's list, extended in place.
 */
export function statusChangeCtes(
  from: Status | null,
  to: Status,
  changed: string,
  params: unknown[],
): string {
  const shares = hooksOf('onStatusChange').flatMap((hook) => hook({ from, to }) ?? []);
  return sharesAsCtes(shares, changed, params, 'on_status');
}

/** Statement shares as CTEs named `<prefix>_<n>`, their parameters appended to `params`. */
export function sharesAsCtes(
  shares: readonly StatementShare[],
  changed: string,
  params: unknown[],
  prefix: string,
): string {
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  return shares
    .flatMap((share) => share(changed, param))
    .map((statement, index) => `, ${prefix}_${index + 1} AS (${statement})`)
    .join('');
}
