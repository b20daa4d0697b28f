// The executor's statements that carry more than their own change (src/privacy-requests/engine/
// executor.ts), so that it costs no round trip of its own: the start of a run with its first call's
// callback target, the compare-and-set of privacyRequestRepository.move with the next call's callback
// target and reply token, or with the completion hooks' shares (the download link and the message).
import {
  CALLBACK_TARGET_COLUMNS,
  CALLBACK_TARGET_PREFIX,
  type CallbackTarget,
  callbackTargetOf,
  callbackTargetSource,
} from '../connections/repository.ts';
import type { Queryable } from '../db/database.ts';
import { sharesAsCtes, type StatementShare, statusChangeCtes } from './lifecycle.ts';
import { insertTokenFrom, insertTokenValues, type NewReplyToken } from './reply-token-repository.ts';
import { type PolicyWithRulesAsRead, policyWithRulesJson } from '../policies/repository.ts';
import { LOG_COLUMNS, type LogEntry, logJson, logRows } from './log-repository.ts';
import {
  type DatesAsText,
  type Move,
  moveStatement,
  type RequestRow,
  STEPS_OF_REQUEST,
  withParsedSteps,
} from './repository.ts';
import type { StepRow } from './step-repository.ts';

/** Splits a row read with CALLBACK_TARGET_COLUMNS into its own columns and the callback target. */
function withoutTarget(found: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(found).filter(([name]) => !name.startsWith(CALLBACK_TARGET_PREFIX)),
  );
}

export const preparedMoveRepository = {
  /**
   * The start of a run, in one statement (one round trip, one commit): an `approved` request moves to
   * `in_processing`, logging `entries`; the request as it is afterwards comes back with its plan and its
   * policy (with the rules), all from one snapshot, so a request seen `approved` or later always comes
   * with the steps its approval snapshotted. A request in any other status is only read. One moved by
   * another transaction meanwhile comes back as it was when the statement began, and the run's next
   * compare-and-set on it loses. When the step at the cursor is a pre- or post-execution webhook, its
   * connection's callback target comes too (`firstTarget`), read as the run starts, before that call.
   */
  async startRun(
    db: Queryable,
    id: string,
    startedAt: Date,
    entries: readonly LogEntry[],
  ): Promise<
    | {
        row: RequestRow;
        steps: StepRow[];
        policy: PolicyWithRulesAsRead;
        firstTarget: CallbackTarget | undefined;
      }
    | undefined
  > {
    const params: unknown[] = [id, startedAt, logJson(entries)];
    const hooks = statusChangeCtes('approved', 'in_processing', 'started', params);
    const { rows } = await db.query<Record<string, unknown>>(
      `WITH started AS (
         UPDATE privacy_requests SET status = 'in_processing', started_processing_at = $2, updated_at = now()
          WHERE id = $1 AND status = 'approved' RETURNING *),
       logged AS (
         INSERT INTO privacy_request_log ${LOG_COLUMNS}
         ${logRows('(SELECT id FROM started)', '$3')})${hooks},
       request AS (
         SELECT * FROM started
         UNION ALL
         SELECT * FROM privacy_requests WHERE id = $1 AND NOT EXISTS (SELECT FROM started))
       SELECT r.*, ${STEPS_OF_REQUEST} AS steps, ${policyWithRulesJson('r.policy_id')} AS policy, target.*
         FROM request r
         LEFT JOIN LATERAL (
           SELECT ${CALLBACK_TARGET_COLUMNS}
             FROM ${callbackTargetSource(`(SELECT s.connection_key FROM privacy_request_steps s
                                            WHERE s.privacy_request_id = r.id AND s.position = r.next_step
                                              AND s.kind IN ('pre', 'post'))`)}) target ON true`,
      params,
    );
    const found = rows[0];
    if (!found) return undefined;
    const { policy, ...request } = withoutTarget(found) as unknown as RequestRow & {
      steps: (Omit<StepRow, keyof DatesAsText> & DatesAsText)[];
      policy: PolicyWithRulesAsRead;
    };
    return {
      ...(withParsedSteps(request) as { row: RequestRow; steps: StepRow[] }),
      policy,
      firstTarget: callbackTargetOf(found),
    };
  },

  /**
   * `move`, and in the same statement what the next call needs, so that it costs no round trip of its
   * own: the callback target of `next.connectionKey` (read as the move commits, after the step it
   * confirms and before the next call: a change of the connection made before then applies to that call)
   * and, when it awaits an answer, its reply token (recorded only if the move wins, committed before the
   * call that carries it).
   */
  async moveAndPrepare(
    db: Queryable,
    move: Move,
    next: { connectionKey: string | null; token?: NewReplyToken },
  ): Promise<{ row: RequestRow; target: CallbackTarget | undefined } | undefined> {
    const { sql, params } = moveStatement(move);
    let token = '';
    if (next.token) {
      token = `, token AS (${insertTokenFrom('moved', params.length + 1)})`;
      params.push(...insertTokenValues(next.token));
    }
    let target = '';
    if (next.connectionKey !== null) {
      params.push(next.connectionKey);
      target = `LEFT JOIN LATERAL (SELECT ${CALLBACK_TARGET_COLUMNS}
                                     FROM ${callbackTargetSource(`$${params.length}`)}) target ON true`;
    }
    const { rows } = await db.query<Record<string, unknown>>(
      `${sql}${token} SELECT moved.*${target ? ', target.*' : ''} FROM moved ${target}`,
      params,
    );
    const found = rows[0];
    if (!found) return undefined;
    return { row: withoutTarget(found) as unknown as RequestRow, target: callbackTargetOf(found) };
  },

  /**
   * A move that completes the request, with the completion hooks' shares (the download link and the
   * message, src/privacy-requests/lifecycle.ts) in the same statement: they are stored only if the move
   * wins, and commit with it.
   */
  async completeWith(
    db: Queryable,
    move: Move,
    shares: readonly StatementShare[],
  ): Promise<RequestRow | undefined> {
    const { sql, params } = moveStatement(move);
    const extra = sharesAsCtes(shares, 'moved', params, 'on_completion');
    const { rows } = await db.query<RequestRow>(`${sql}${extra} SELECT * FROM moved`, params);
    return rows[0];
  },
};
