// The one way in. Every privacy request, however it arrives (an operator's API call, the public privacy
// center, a subject who has just proved their email), is prepared, received and admitted here, so a rule of
// intake (each action's input checked and sealed, pre-approval webhooks first, a request that needs a person
// waits for one, manual approval, the "received" message) is written once and no flow can forget it.
// `prepareRequest` checks what a request gives for its actions and seals it; `receive` stores a batch with
// its first log entry; `admit` sends pending requests on: to their pre-approval webhooks, to approval at
// once, or to an operator; and tells each subject their request was received. The last two run in the
// caller's transaction.
import { actionInputs, type InputRefusal, needsPerson } from '../actions/registry.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/database.ts';
import { acknowledgeDueDate, dueDateOf, jurisdictionOf, timeZoneOf } from '../deadlines/clock.ts';
import { queueSubjectMessages } from './messages/subject-messages.ts';
import type { Services } from '../services.ts';
import { webhookRepository } from '../webhooks/repository.ts';
import { approvedEntry, planOf } from './approval.ts';
import { clockRepository } from './clock-repository.ts';
import { screenTrusted } from './duplicates.ts';
import { enqueueAdvances } from './jobs.ts';
import { logRepository } from './log-repository.ts';
import {
  type NewRequest,
  privacyRequestRepository as repo,
  type RequestChanges,
  type RequestRow,
} from './repository.ts';
import { type NewStep, stepRepository } from './step-repository.ts';
import { loadPolicyEmbeds } from './view.ts';

type IntakeServices = Pick<Services, 'queue' | 'config' | 'keyring'>;

/**
 * The front half of intake, for every way in: what the request gives for the actions of its policy (the
 * `given` fields of each action type's input: consent_preferences, corrections) checked against the
 * policy's rules, and stored as the action types keep it (sealed when personal). Answers the request to
 * receive, or the refusal (its sentence, and its words for a public page when it has them).
 */
export async function prepareRequest(
  db: Queryable,
  keyring: Keyring,
  policy: { id: string; key: string; rules: readonly { action_type: string; targets: readonly string[] }[] },
  given: Record<string, unknown>,
  request: Omit<NewRequest, 'policyId' | 'consentPreferences' | 'correctionsSealed'>,
): Promise<NewRequest | { refused: InputRefusal }> {
  let prepared: NewRequest = { ...request, policyId: policy.id };
  for (const { input } of actionInputs()) {
    const value = given[input.field];
    const problem = await input.problem(db, policy.key, policy.rules, value);
    if (typeof problem === 'string') return { refused: { message: problem } };
    if (problem) return { refused: problem };
    if (value !== undefined) prepared = { ...prepared, ...input.store(keyring, request.id, value) };
  }
  return prepared;
}

/**
 * Every way a privacy request arrives, with what proves its identities on that way (DECISIONS.md, "Trust by
 * construction"). `receive` takes only these, and test/trust/every-way-in.test.ts walks each of WAYS_IN with
 * a stranger's phone number: a new way in is added here, and so must join that walk.
 */
export const ARRIVALS = {
  operator_api:
    "an operator's management token: POST /v1/privacy-request (also Fides' path /api/v1/privacy-request, and the console)",
  public_json: 'the code mailed to the email: POST /v1/privacy-center/privacy-request',
  public_form: "the code mailed to the email: the privacy center page's form",
  public_opt_out:
    'nothing: an opt-out needs no proof, so its values stay unverified and record opt-outs only',
  agent: "the subject's confirm-agent link, mailed to the subject's email: a public request naming an agent",
} as const;
export type ArrivalWay = keyof typeof ARRIVALS;

/** The arrivals, and the one admission that is not the arrival's own proof: an operator's power of attorney. */
export const WAYS_IN: readonly string[] = [...Object.keys(ARRIVALS), 'power_of_attorney'];

/** How a batch arrives: who sent it (null: the public), the status it starts in and what its log says. */
export interface Arrival {
  way: ArrivalWay;
  clientId: string | null;
  status: 'identity_unverified' | 'pending';
  message: string;
}

/**
 * Stores the requests of one arrival in one statement, each with its first log entry, and starts each one's
 * clock: its jurisdiction and due date, from the instant the database received it.
 */
export async function receive(
  tx: Queryable,
  services: Pick<Services, 'config'>,
  arrival: Arrival,
  requests: readonly NewRequest[],
): Promise<RequestRow[]> {
  const rows = await repo.insertMany(
    tx,
    arrival.clientId,
    arrival.status,
    services.config.defaultTtlSeconds,
    requests,
  );
  const clocks = await startClocks(tx, rows, services.config.deadlineTimeZone);
  await logRepository.appendLogs(
    tx,
    rows.map((row) => ({
      id: row.id,
      entry: {
        kind: 'transition',
        fromStatus: null,
        toStatus: arrival.status,
        message: arrival.message,
        details: { way_in: arrival.way },
      },
    })),
  );
  return rows.map((row, index) => ({ ...row, ...clocks[index] }));
}

/** Sets and answers, in the order of `rows`, each request's jurisdiction and due date (src/deadlines/). */
async function startClocks(
  tx: Queryable,
  rows: readonly RequestRow[],
  zoneOverride: string | null,
): Promise<Pick<RequestRow, 'jurisdiction' | 'due_at' | 'acknowledge_due_at'>[]> {
  const policies = await clockRepository.policyClocks(
    tx,
    rows.map((row) => row.policy_id),
  );
  const deadlines = rows.map((row) => {
    const policy = policies.get(row.policy_id);
    if (!policy) throw new Error(`policy ${row.policy_id} of a privacy request is missing`);
    const jurisdiction = jurisdictionOf(row.location, policy.jurisdiction);
    const zone = timeZoneOf(row.location, jurisdiction, zoneOverride);
    return {
      id: row.id,
      jurisdiction,
      dueAt: dueDateOf(row.requested_at, jurisdiction, policy.execution_timeframe, zone, policy.opt_out),
      acknowledgeDueAt: acknowledgeDueDate(row.requested_at, jurisdiction, zone),
    };
  });
  await clockRepository.setDeadlines(tx, deadlines);
  return deadlines.map((deadline) => ({
    jurisdiction: deadline.jurisdiction,
    due_at: deadline.dueAt,
    acknowledge_due_at: deadline.acknowledgeDueAt,
  }));
}

/**
 * Sends pending requests on, in batches of statements: with pre-approval webhooks, to them (the worker
 * calls them and approves on all-eligible); without, a public erasure waits for an operator unless
 * LETHE_PUBLIC_ERASURE_AUTO_APPROVE, and the others are approved at once unless
 * LETHE_REQUIRE_MANUAL_APPROVAL. Each subject is told their request was received. A checked duplicate of an
 * open request is canceled first, and told so (LETHE_DUPLICATE_DETECTION).
 */
export async function admit(
  tx: Queryable,
  services: IntakeServices,
  received: readonly RequestRow[],
): Promise<void> {
  // Duplicates of an open request are canceled here, before any webhook or approval (duplicates.ts).
  const rows = await screenTrusted(tx, services, received);
  if (rows.length === 0) return;
  const preApproval = await webhookRepository.preApprovalWebhooks(tx);
  if (preApproval.length > 0) {
    const steps = preApproval.map((webhook): NewStep => ({
      kind: 'pre_approval',
      webhookId: webhook.id,
      webhookKey: webhook.key,
      webhookName: webhook.name,
      direction: null,
      connectionKey: webhook.connection_key,
    }));
    await stepRepository.insertPlans(
      tx,
      rows.map((row) => ({ id: row.id, from: 0, steps })),
    );
    await enqueueAdvances(
      services.queue,
      tx,
      rows.map((row) => row.id),
    );
  } else {
    const waiting = await awaitingOperator(tx, services, rows);
    await logRepository.appendLogs(
      tx,
      rows
        .filter((row) => waiting.has(row.id))
        .map((row) => ({
          id: row.id,
          entry: {
            kind: 'note',
            message: "awaits an operator's approval: a public erasure or a correction needs a person",
          },
        })),
    );
    if (!services.config.requireManualApproval) {
      await approveAll(
        tx,
        services,
        rows.filter((row) => !waiting.has(row.id)),
        'approved automatically: no pre-approval webhooks',
      );
    }
  }
  await queueSubjectMessages(
    tx,
    services,
    rows.map((row) => ({
      request: row,
      kind: 'received' as const,
      // §7021(a): the confirmation says how the request is verified and by when it is answered.
      details: {
        dueDate: row.due_at ?? undefined,
        timeZone: timeZoneOf(row.location, row.jurisdiction, services.config.deadlineTimeZone),
        verifiedByCode: row.identity_verified_at !== null,
      },
    })),
  );
}

/** The requests among `rows` whose actions need a person (a public erasure, a correction: src/actions/). */
async function awaitingOperator(
  tx: Queryable,
  services: Pick<Services, 'config'>,
  rows: readonly RequestRow[],
): Promise<Set<string>> {
  const policies = await loadPolicyEmbeds(tx, [...new Set(rows.map((row) => row.policy_id))]);
  const waiting = new Set<string>();
  for (const row of rows) {
    const policy = policies.get(row.policy_id);
    if (!policy) throw new Error(`policy ${row.policy_id} of a privacy request is missing`);
    if (needsPerson(policy.rules, row, services.config)) waiting.add(row.id);
  }
  return waiting;
}

/** pending -> approved for a batch: each request's plan snapshotted, the move logged, the work queued. */
async function approveAll(
  tx: Queryable,
  services: Pick<Services, 'queue'>,
  rows: readonly RequestRow[],
  message: string,
): Promise<void> {
  if (rows.length === 0) return;
  const webhooks = await webhookRepository.webhooksOfPolicies(
    tx,
    rows.map((row) => row.policy_id),
  );
  const plans = rows.map((row) => ({
    id: row.id,
    from: 0,
    steps: planOf(webhooks.get(row.policy_id) ?? []),
  }));
  await repo.transitionAll(
    tx,
    plans.map((plan) => ({ id: plan.id, entry: approvedEntry(plan.steps, message) })),
    'pending',
    'approved',
  );
  await stepRepository.insertPlans(tx, plans);
  await enqueueAdvances(
    services.queue,
    tx,
    rows.map((row) => row.id),
  );
}

/**
 * A subject has proved their email: identity_unverified -> pending with the proof's columns (the email
 * moved to the trusted identity), then admitted as any pending request. False when the request had moved.
 */
export async function admitVerified(
  tx: Queryable,
  services: IntakeServices,
  row: RequestRow,
  changes: RequestChanges,
  message = 'email verified with the mailed code; any other identity given stays unverified',
): Promise<boolean> {
  const moved = await repo.transition(tx, {
    id: row.id,
    from: 'identity_unverified',
    to: 'pending',
    changes,
    message,
  });
  if (moved) await admit(tx, services, [{ ...row, ...changes, status: 'pending' }]);
  return moved;
}
