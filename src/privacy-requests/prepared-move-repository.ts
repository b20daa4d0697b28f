// Moves of the executor (src/privacy-requests/engine/executor.ts) that carry more in the same statement,
// so that it costs no round trip of its own: the compare-and-set of privacyRequestRepository.move with the
// next call's callback target and reply token, or with the completion's download link and message.
import {
  CALLBACK_TARGET_COLUMNS,
  CALLBACK_TARGET_PREFIX,
  type CallbackTarget,
  callbackTargetOf,
  callbackTargetSource,
} from '../connections/repository.ts';
import type { PreparedAnnouncement } from '../access-delivery/completion.ts';
import { insertLinkFrom } from '../access-delivery/repository.ts';
import type { Queryable } from '../db/database.ts';
import { insertMessagesSql, messagesValue } from '../outbox/repository.ts';
import { insertTokenFrom, insertTokenValues, type NewReplyToken } from './reply-token-repository.ts';
import { type Move, moveStatement, type RequestRow } from './repository.ts';

export const preparedMoveRepository = {
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
    const row = Object.fromEntries(
      Object.entries(found).filter(([name]) => !name.startsWith(CALLBACK_TARGET_PREFIX)),
    ) as unknown as RequestRow;
    return { row, target: callbackTargetOf(found) };
  },

  /**
   * A move that completes the request, with the completion's download link and message (prepared by
   * prepareAnnouncement) in the same statement: they are stored only if the move wins, and commit with it.
   */
  async completeAnnouncing(
    db: Queryable,
    move: Move,
    announcement: PreparedAnnouncement | undefined,
  ): Promise<RequestRow | undefined> {
    const { sql, params } = moveStatement(move);
    let extra = '';
    if (announcement?.link) {
      extra += `, link AS (${insertLinkFrom('moved', params.length + 1)})`;
      params.push(announcement.link.tokenHash, announcement.link.expiresAt);
    }
    if (announcement && announcement.messages.length > 0) {
      params.push(messagesValue(announcement.messages));
      extra += `, message AS (${insertMessagesSql(`$${params.length}`, 'EXISTS (SELECT FROM moved)')})`;
    }
    const { rows } = await db.query<RequestRow>(`${sql}${extra} SELECT * FROM moved`, params);
    return rows[0];
  },
};
