// What the outbox tells the rest of Lethe about a delivery attempt, so that a request's log can show
// what its subject was told without the outbox knowing requests (the runtime wires the two).
import type { Queryable } from '../db/database.ts';
import type { MessageKind } from './repository.ts';

/** One delivery attempt of a message that belongs to a privacy request, as its log keeps it. */
export interface DeliveryAttempt {
  privacyRequestId: string;
  messageId: string;
  kind: MessageKind;
  /** Masked: never the address itself. */
  recipient: string;
  attempt: number;
  /** The transport's codes when the attempt failed; undefined once delivered. */
  error: string | undefined;
}

export type RecordAttempt = (tx: Queryable, attempt: DeliveryAttempt) => Promise<void>;
