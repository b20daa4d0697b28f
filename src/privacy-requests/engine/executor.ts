// Runs a privacy request's snapshotted plan, one step after the other, from its cursor (`next_step`).
// A step's effects (cursor moved, step completed, identities merged, status changed, log written) commit
// in one statement guarded by a compare-and-set on status and cursor, so a worker killed at any instant
// leaves the request at the first step not yet confirmed: the next worker calls that webhook again (same
// Idempotency-Key) and never skips one. The request, its plan and its policy are read once per run, by the
// statement that starts an approved request; each later step starts from the row the previous step's
// compare-and-set returned, the row as committed then (a transition by anybody else makes the next set
// lose and the run stop). Webhook calls happen outside any transaction. It never logs an identity, a
// header value or a response body.
import { randomUUID } from 'node:crypto';
import type { CallbackDelivery } from '../../callbacks/delivery.ts';
import { type CallbackTarget, connectionRepository } from '../../connections/repository.ts';
import type { PolicyWithRulesAsRead } from '../../policies/repository.ts';
import type { Services } from '../../services.ts';
import { openIdentity, openUnverifiedIdentity, sealIdentity, typedIdentities } from '../identity.ts';
import { derivedByWebhook, type TrustedIdentity, trustedMatches } from '../trusted-identity.ts';
import { callbackInputs, openActionInputs } from '../action-inputs.ts';
import { hooksOf, type PendingWork } from '../lifecycle.ts';
import { parseTwoWayAnswer } from './two-way-answer.ts';
import { schedulePauseExpiry } from '../jobs.ts';
import { issueReplyToken } from '../reply-token.ts';
import { runRulesOf } from '../rules/runner.ts';
import { type LogEntry, transitionEntry } from '../log-repository.ts';
import { type NewReplyToken, replyTokenRepository } from '../reply-token-repository.ts';
import { preparedMoveRepository } from '../prepared-move-repository.ts';
import {
  type Move,
  privacyRequestRepository as repo,
  type RequestChanges,
  type RequestRow,
} from '../repository.ts';
import type { Status } from '../statuses.ts';
import type { StepRow } from '../step-repository.ts';
import { type PolicyEmbed, toPolicyEmbed } from '../view.ts';
import { asksForReply, callbackBody, callbackHeaders, deliverCallback } from './webhook-step.ts';
import { completeAfterLastStep, completeRequest } from './completion-step.ts';

/** Enough for any plan (at most 50 + 1 + 50 steps plus pre-approval ones); a guard against a loop bug. */
const MAX_STEPS_PER_RUN = 500;

/** The request after a step, to continue from; undefined to stop this run. */
type StepResult = RequestRow | undefined;

/**
 * What one run reads once: the plan, the policy (its callbacks embed it, its rules step runs its rules, its
 * completion message names it) and the opened identities. A change to the policy made during a run
 * applies from the next run (a run lasts as long as its webhook calls).
 */
interface Run {
  readonly steps: readonly StepRow[];
  readonly policy: { whole: PolicyWithRulesAsRead; embed: PolicyEmbed };
  /** The identities as last opened, and the sealed value they came from (a derived identity replaces it). */
  identity?: { sealed: Uint8Array; opened: TrustedIdentity };
  /** What the statement that confirmed the last step read and recorded for the call of the next one. */
  prepared?: PreparedCall;
}

/** A webhook call's target and reply token, read and recorded by the move before it (moveAndPrepare). */
interface PreparedCall {
  position: number;
  target: CallbackTarget | undefined;
  /** The jti of the reply token recorded for the call, when it awaits an answer. */
  tokenJti?: string;
}

export class PrivacyRequestExecutor {
  readonly #services: Services;
  readonly #delivery: CallbackDelivery;

  constructor(services: Services, delivery: CallbackDelivery) {
    this.#services = services;
    this.#delivery = delivery;
  }

  get #db() {
    return this.#services.db;
  }

  /** Advances the request as far as it can go now: to completion, a pause, an error, or awaiting approval. */
  async advance(id: string): Promise<void> {
    const loaded = await preparedMoveRepository.startRun(this.#db, id, new Date(), [
      transitionEntry('approved', 'in_processing', 'execution started'),
    ]);
    if (!loaded) return;
    const first = loaded.steps.find((step) => step.position === loaded.row.next_step);
    const run: Run = {
      steps: loaded.steps,
      policy: { whole: loaded.policy, embed: toPolicyEmbed(loaded.policy) },
      ...(first?.kind === 'pre' || first?.kind === 'post'
        ? { prepared: { position: first.position, target: loaded.firstTarget } }
        : {}),
    };
    let row: RequestRow | undefined = loaded.row;
    for (let round = 0; round < MAX_STEPS_PER_RUN && row; round++) {
      // startRun found it approved but lost it to another change before it could start it.
      if (row.status === 'approved') {
        row = await repo.move(this.#db, {
          id,
          from: 'approved',
          to: 'in_processing',
          changes: { started_processing_at: new Date() },
          entries: [transitionEntry('approved', 'in_processing', 'execution started')],
        });
        continue;
      }
      if (row.status !== 'pending' && row.status !== 'in_processing') return;
      const position = row.next_step;
      const step = run.steps.find((candidate) => candidate.position === position);
      if (!step) {
        // The last step completes the request with it; this finds one left with every step done but not
        // complete (by an earlier version of this code).
        if (row.status === 'in_processing')
          await completeAfterLastStep(this.#services, run.policy.embed, row);
        return;
      }
      if (row.status === 'pending' && step.kind !== 'pre_approval') return;
      if (step.kind === 'pre_approval' && row.status !== 'pending') {
        row = await this.#finishStep(run, row, step, row.status, {}, [
          {
            kind: 'note',
            webhookKey: step.webhook_key,
            timing: 'pre_approval',
            message: 'not called: the request was already approved',
          },
        ]);
        continue;
      }
      if (!row.identity_sealed) {
        await this.#fail(
          row,
          step,
          'the identities of this request have expired and were purged; resubmit it',
          [],
        );
        return;
      }
      const identity = this.#identity(run, row, row.identity_sealed);
      row =
        step.kind === 'rules'
          ? await this.#runRules(run, row, step, identity)
          : await this.#callWebhook(run, row, step, identity);
    }
    if (row) throw new Error(`request ${id} did not settle within ${MAX_STEPS_PER_RUN} steps`);
  }

  #identity(run: Run, row: RequestRow, sealed: Uint8Array): TrustedIdentity {
    // Every compare-and-set returns the row anew: compare the bytes, not the buffers.
    if (!run.identity || Buffer.compare(run.identity.sealed, sealed) !== 0) {
      run.identity = { sealed, opened: openIdentity(this.#services.keyring, row.id, sealed) };
    }
    return run.identity.opened;
  }

  async #runRules(run: Run, row: RequestRow, step: StepRow, identity: TrustedIdentity): Promise<StepResult> {
    const policy = run.policy;
    const started = performance.now();
    let summary: unknown;
    try {
      summary = await runRulesOf(
        this.#services,
        {
          privacyRequestId: row.id,
          policyKey: policy.whole.key,
          identities: trustedMatches(identity),
          unproven: typedIdentities(
            openUnverifiedIdentity(this.#services.keyring, row.id, row.unverified_identity_sealed),
          ),
          inputs: openActionInputs(this.#services.keyring, row),
        },
        policy.whole.rules,
      );
    } catch (error) {
      const reason = `the policy rules failed: ${error instanceof Error ? error.message : String(error)}`;
      await this.#fail(row, step, reason, [
        { kind: 'rules', error: reason, durationMs: Math.round(performance.now() - started) },
      ]);
      return undefined;
    }
    const entries: LogEntry[] = [
      {
        kind: 'rules',
        message: 'policy rules ran',
        durationMs: Math.round(performance.now() - started),
        details: summary,
      },
    ];
    const pending: PendingWork[] = [];
    for (const hook of hooksOf('afterRules')) {
      const work = await hook(this.#db, this.#services, { row, policy: policy.whole });
      if (work) pending.push(work);
    }
    if (pending.length > 0) return this.#awaitWork(row, step, entries, pending);
    return this.#finishStep(run, row, step, 'in_processing', {}, entries);
  }

  /**
   * Records the rules step as done and moves the request to `requires_input` with the work it waits for
   * (its manual tasks), in one transaction; the work's owner moves it on once the last is done. Work a
   * rerun finds already closed (a retried request) is not asked again: with none left open, the request
   * goes on at once.
   */
  async #awaitWork(
    row: RequestRow,
    step: StepRow,
    entries: LogEntry[],
    pending: PendingWork[],
  ): Promise<StepResult> {
    return this.#db.transaction(async (tx) => {
      const waiting = await repo.move(tx, {
        id: row.id,
        from: row.status,
        to: 'requires_input',
        changes: { next_step: step.position + 1 },
        atStep: step.position,
        completeStep: step.position,
        entries: [
          ...entries,
          transitionEntry(
            row.status,
            'requires_input',
            `waiting for ${pending.map((work) => work.description).join(' and ')}`,
          ),
        ],
      });
      if (!waiting) return undefined;
      let open = 0;
      for (const work of pending) open += await work.open(tx);
      if (open > 0) return undefined;
      return repo.move(tx, {
        id: row.id,
        from: 'requires_input',
        to: 'in_processing',
        entries: [transitionEntry('requires_input', 'in_processing', 'every task was already closed')],
      });
    });
  }

  async #callWebhook(
    run: Run,
    row: RequestRow,
    step: StepRow,
    identity: TrustedIdentity,
  ): Promise<StepResult> {
    const timing = step.kind;
    const twoWay = step.direction === 'two_way';
    // Read for every call, not once a run: a rotated signing secret or a replaced authorization applies
    // from the next callback (docs/callbacks.md), and an OAuth connection's row carries its cached token.
    // The statement that confirmed the step before this one read it (and recorded this call's reply
    // token) when it could: after that step's call, before this one.
    const prepared = run.prepared?.position === step.position ? run.prepared : undefined;
    run.prepared = undefined;
    const target = prepared
      ? prepared.target
      : step.connection_key
        ? await connectionRepository.callbackTarget(this.#db, step.connection_key)
        : undefined;
    const replyToken = !asksForReply(step)
      ? undefined
      : prepared?.tokenJti
        ? (await this.#sealToken(row, step, prepared.tokenJti)).token
        : await this.#issueToken(row, step);
    const headers = callbackHeaders(row, step, replyToken);
    const body = callbackBody(
      row,
      step,
      run.policy.embed,
      identity,
      openUnverifiedIdentity(this.#services.keyring, row.id, row.unverified_identity_sealed),
      callbackInputs(this.#services.keyring, row),
    );
    const delivered = await deliverCallback(this.#services, this.#delivery, target, step, headers, body);
    if ('unsendable' in delivered) {
      await this.#fail(row, step, delivered.unsendable, delivered.entries);
      return undefined;
    }
    const { outcome: final, entries } = delivered;

    if (!twoWay) {
      const status: Status = row.status;
      if (!final.ok) {
        entries.push({
          kind: 'note',
          webhookKey: step.webhook_key,
          timing,
          message:
            timing === 'pre_approval'
              ? 'the pre-approval webhook could not be called; the request awaits manual review'
              : `the one_way webhook failed after ${entries.length} tries; the request goes on`,
        });
      }
      return this.#finishStep(run, row, step, status, {}, entries);
    }

    if (!final.ok) {
      await this.#fail(row, step, `two_way webhook ${step.webhook_key} failed: ${final.error}`, entries);
      return undefined;
    }
    const answer = parseTwoWayAnswer(final.body ?? '');
    if (typeof answer === 'string') {
      const reason = `two_way webhook ${step.webhook_key} answered an invalid body: ${answer}`;
      const last = entries.at(-1);
      if (last) last.error = reason;
      await this.#fail(row, step, reason, entries);
      return undefined;
    }
    const changes: RequestChanges = {};
    if (answer.derived && Object.keys(answer.derived).length > 0) {
      changes.identity_sealed = sealIdentity(
        this.#services.keyring,
        row.id,
        derivedByWebhook(identity, answer.derived),
      );
      entries.push({
        kind: 'note',
        webhookKey: step.webhook_key,
        timing,
        message: 'derived identities saved',
        details: { derived_identity_types: Object.keys(answer.derived) },
      });
    }
    if (answer.halt && timing === 'post') {
      entries.push({
        kind: 'note',
        webhookKey: step.webhook_key,
        timing,
        message: 'halt from a post-execution webhook ignored',
      });
    }
    if (answer.halt && timing === 'pre') {
      const now = new Date();
      entries.push(transitionEntry('in_processing', 'paused', `halted by webhook ${step.webhook_key}`));
      const paused = await this.#finishStep(
        run,
        row,
        step,
        'paused',
        { ...changes, paused_at: now, paused_step: step.position },
        entries,
      );
      if (paused) {
        await schedulePauseExpiry(
          this.#services.queue,
          row.id,
          now,
          this.#services.config.privacyRequestDelayTimeoutSeconds,
        );
      }
      return undefined;
    }
    return this.#finishStep(run, row, step, 'in_processing', changes, entries);
  }

  async #issueToken(row: RequestRow, step: StepRow): Promise<string> {
    const { token, claims } = await this.#sealToken(row, step, randomUUID());
    await replyTokenRepository.insertToken(this.#db, { ...this.#tokenRecord(step, claims.jti), id: row.id });
    return token;
  }

  #sealToken(row: RequestRow, step: StepRow, jti: string) {
    return issueReplyToken(this.#services.keyring, {
      webhook_id: step.webhook_id as string,
      privacy_request_id: row.id,
      jti,
    });
  }

  #tokenRecord(step: StepRow, jti: string): NewReplyToken {
    return {
      jti,
      step: step.position,
      kind: step.kind === 'pre_approval' ? 'pre_approval' : 'resume',
      ttlSeconds: this.#services.config.privacyRequestDelayTimeoutSeconds,
    };
  }

  /**
   * Records a step as done and moves the cursor past it, only if nobody moved the request meanwhile; the
   * last step of a running plan completes the request in the same statement. Answers the request as it is
   * afterwards, or undefined when another record won.
   */
  async #finishStep(
    run: Run,
    row: RequestRow,
    step: StepRow,
    to: Status,
    changes: RequestChanges,
    entries: LogEntry[],
  ): Promise<StepResult> {
    const last = to === 'in_processing' && !run.steps.some((other) => other.position > step.position);
    const now = new Date();
    const policy = last ? run.policy.embed : undefined;
    const next = run.steps.find((other) => other.position === step.position + 1);
    const nextCall =
      to === 'in_processing' && (next?.kind === 'pre' || next?.kind === 'post') ? next : undefined;
    return (
      policy
        ? (move: Move) => completeRequest(this.#services, policy, move, row)
        : nextCall
          ? (move: Move) => this.#movePreparing(run, move, nextCall)
          : (move: Move) => repo.move(this.#db, move)
    )({
      id: row.id,
      from: row.status,
      to: last ? 'complete' : to,
      changes: {
        ...changes,
        next_step: step.position + 1,
        ...(last ? { finished_processing_at: now, finalized_at: now } : {}),
      },
      atStep: step.position,
      completeStep: step.position,
      entries: last ? [...entries, transitionEntry('in_processing', 'complete', 'every step done')] : entries,
    });
  }

  /** A move that also reads the next call's target and records its reply token (one statement). */
  async #movePreparing(run: Run, move: Move, next: StepRow): Promise<RequestRow | undefined> {
    const tokenJti = asksForReply(next) ? randomUUID() : undefined;
    const moved = await preparedMoveRepository.moveAndPrepare(this.#db, move, {
      connectionKey: next.connection_key,
      ...(tokenJti ? { token: this.#tokenRecord(next, tokenJti) } : {}),
    });
    if (!moved) return undefined;
    run.prepared = { position: next.position, target: moved.target, ...(tokenJti ? { tokenJti } : {}) };
    return moved.row;
  }

  async #fail(row: RequestRow, step: StepRow, reason: string, entries: LogEntry[]) {
    await repo.move(this.#db, {
      id: row.id,
      from: row.status,
      to: 'error',
      changes: { error_reason: reason, finished_processing_at: new Date() },
      atStep: step.position,
      entries: [...entries, { ...transitionEntry(row.status, 'error', reason), error: reason }],
    });
  }
}
