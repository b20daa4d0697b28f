// The move that completes a privacy request and tells the subject. For a policy that erases nothing, the
// completion message (and its download link) is made ready first and stored by the statement that
// completes the request (preparedMoveRepository.completeAnnouncing); for an erasure policy the message reads
// the erasure's summary and records the recipients told, so it is written in the completing transaction.
import { announceCompletion, prepareAnnouncement } from '../../access-delivery/completion.ts';
import type { Services } from '../../services.ts';
import { transitionEntry } from '../log-repository.ts';
import { preparedMoveRepository } from '../prepared-move-repository.ts';
import { type Move, privacyRequestRepository as repo, type RequestRow } from '../repository.ts';
import type { PolicyEmbed } from '../view.ts';

/** Applies `move` (to complete) with the completion message; undefined when another move won. */
export async function completeWithAnnouncement(
  services: Services,
  policy: PolicyEmbed,
  move: Move,
  row: RequestRow,
): Promise<RequestRow | undefined> {
  if (!policy.rules.some((rule) => rule.action_type === 'erasure')) {
    const completed: RequestRow = { ...row, ...move.changes, id: move.id, status: 'complete' };
    const announcement = await prepareAnnouncement(services.db, services, completed, policy);
    return preparedMoveRepository.completeAnnouncing(services.db, move, announcement);
  }
  return services.db.transaction(async (tx) => {
    const moved = await repo.move(tx, move);
    if (moved?.status === 'complete') await announceCompletion(tx, services, moved, policy);
    return moved;
  });
}

/** Completes a request whose steps are all confirmed (a run that starts after the last one). */
export async function completeAfterLastStep(services: Services, policy: PolicyEmbed, row: RequestRow) {
  const now = new Date();
  await completeWithAnnouncement(
    services,
    policy,
    {
      id: row.id,
      from: 'in_processing',
      to: 'complete',
      changes: { finished_processing_at: now, finalized_at: now },
      atStep: row.next_step,
      entries: [transitionEntry('in_processing', 'complete', 'every step done')],
    },
    row,
  );
}
