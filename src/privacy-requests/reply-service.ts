// The reply-to calls of webhooks: resume a paused request, and a pre-approval webhook's answer. A call's
// reply-to-token is opened once (replyTokenClaims, before the body is read), then judged with the request
// and the token's record locked, and used up in the same transaction; the call answers the status its
// transition set. It never logs an identity nor puts one in an error message.
import type { Queryable } from '../db/database.ts';
import { badRequest, forbidden, invalid, unauthorized } from '../errors.ts';
import type { Services } from '../services.ts';
import { approveRequest, awaitsOperator } from './approval.ts';
import { type DerivedIdentity, derivedIdentityProblem, openIdentity, sealIdentity } from './identity.ts';
import { enqueueAdvance } from './jobs.ts';
import { derivedByWebhook, NOTHING_PROVED } from './trusted-identity.ts';
import { openReplyToken, type ReplyAnswer, type ReplyTokenClaims } from './reply-token.ts';
import { logRepository } from './log-repository.ts';
import { replyTokenRepository } from './reply-token-repository.ts';
import { privacyRequestRepository as repo, type RequestRow } from './repository.ts';
import type { Status } from './statuses.ts';
import { stepRepository } from './step-repository.ts';

/** What an opened resume token grants (reply-token.ts owns its key; the routes read the claims from here). */
export type { ReplyTokenClaims };

export class ReplyToService {
  readonly #services: Services;

  constructor(services: Services) {
    this.#services = services;
  }

  /**
   * Resumes a paused request with its reply-to-token. The token must be one this installation issued
   * (401), for this request (403), unexpired and unused (401), and the request must still be paused on
   * the webhook that issued it (400). The body's identities replace the known ones, by type. The body is
   * judged (422) only once the token is known to be unused, so a spent token buys no work.
   */
  async resume(
    id: string,
    claims: ReplyTokenClaims,
    derived: DerivedIdentity | undefined,
  ): Promise<ReplyAnswer> {
    return this.#withReplyToken(id, claims, 'resume', async (tx, row, step) => {
      const problem = derived === undefined ? undefined : derivedIdentityProblem(derived);
      if (problem) throw invalid(problem);
      if (row.status !== 'paused') throw badRequest(`Request ${id} is not paused; it is ${row.status}.`);
      if (row.paused_step !== step)
        throw badRequest(`Request ${id} is paused on another webhook; this token is not its reply-to-token.`);
      const changes: { identity_sealed?: Buffer } = {};
      if (derived && Object.keys(derived).length > 0) {
        const known = row.identity_sealed
          ? openIdentity(this.#services.keyring, id, row.identity_sealed)
          : NOTHING_PROVED;
        changes.identity_sealed = sealIdentity(this.#services.keyring, id, derivedByWebhook(known, derived));
      }
      await repo.transition(tx, {
        id,
        from: 'paused',
        to: 'in_processing',
        changes: { ...changes, paused_at: null, paused_step: null },
        message: 'resumed with the reply-to-token',
        ...(derived && { details: { derived_identity_types: Object.keys(derived) } }),
      });
      await enqueueAdvance(this.#services.queue, tx, id);
      return 'in_processing';
    });
  }

  /** A pre-approval webhook's answer. All eligible approves the request; not eligible leaves it for review. */
  async answerPreApproval(
    id: string,
    claims: ReplyTokenClaims,
    answer: 'eligible' | 'not_eligible',
  ): Promise<ReplyAnswer> {
    return this.#withReplyToken(id, claims, 'pre_approval', async (tx, row, step) => {
      if (row.status !== 'pending')
        throw badRequest(`Request ${id} is not awaiting pre-approval; it is ${row.status}.`);
      const steps = await stepRepository.steps(tx, id);
      const current = steps.find((candidate) => candidate.position === step);
      if (!current || current.kind !== 'pre_approval' || current.answer !== null)
        throw badRequest(`This pre-approval webhook has already answered for request ${id}.`);
      await stepRepository.answerStep(tx, id, step, answer);
      await logRepository.appendLog(tx, id, [
        {
          kind: 'note',
          webhookKey: current.webhook_key,
          timing: 'pre_approval',
          message:
            answer === 'eligible'
              ? 'pre-approval webhook answered eligible'
              : 'pre-approval webhook answered not eligible; the request awaits manual review',
        },
      ]);
      const preApprovals = steps.filter((candidate) => candidate.kind === 'pre_approval');
      const allEligible = preApprovals.every(
        (candidate) => (candidate.position === step ? answer : candidate.answer) === 'eligible',
      );
      if (!allEligible) return 'pending';
      if (await awaitsOperator(this.#services, tx, row)) {
        await logRepository.appendLog(tx, id, [
          {
            kind: 'note',
            message:
              "every pre-approval webhook answered eligible; a public erasure or a correction awaits an operator's approval",
          },
        ]);
        return 'pending';
      }
      await approveRequest(
        this.#services.queue,
        tx,
        row,
        null,
        'approved: every pre-approval webhook answered eligible',
      );
      return 'approved';
    });
  }

  /**
   * The claims of a reply-to-token addressed to this request: 401 when it does not open or has expired,
   * 403 when it belongs to another request. The routes call it before reading the body, so a caller
   * without a valid token learns nothing of the body's schema; whether it is still unused is decided
   * with the request locked.
   */
  async replyTokenClaims(id: string, token: string | undefined): Promise<ReplyTokenClaims> {
    const claims = token ? await openReplyToken(this.#services.keyring, token) : undefined;
    if (!claims) throw unauthorized('A valid reply-to-token is required as the Bearer token.');
    const age = Date.now() / 1000 - claims.iat;
    if (age > this.#services.config.privacyRequestDelayTimeoutSeconds)
      throw unauthorized('This reply-to-token has expired.');
    if (claims.privacy_request_id !== id) throw forbidden('This reply-to-token belongs to another request.');
    return claims;
  }

  /**
   * Runs `act` with the request and the token's record locked, then marks the token used; answers the
   * status `act` moved the request to. `claims` come from replyTokenClaims: the token is opened once.
   */
  async #withReplyToken(
    id: string,
    claims: ReplyTokenClaims,
    kind: 'resume' | 'pre_approval',
    act: (tx: Queryable, row: RequestRow, step: number) => Promise<Status>,
  ): Promise<ReplyAnswer> {
    return this.#services.db.transaction(async (tx) => {
      const row = await repo.lock(tx, id);
      const record = await replyTokenRepository.lockToken(tx, claims.jti);
      if (!row || !record || record.privacy_request_id !== id || record.kind !== kind)
        throw unauthorized('This reply-to-token is not valid for this call.');
      if (record.used_at !== null) throw unauthorized('This reply-to-token has already been used.');
      if (record.expired) throw unauthorized('This reply-to-token has expired.');
      const status = await act(tx, row, record.step);
      await replyTokenRepository.useToken(tx, claims.jti);
      return { privacy_request_id: id, status };
    });
  }
}
