// The move that completes a privacy request, with what the completion hooks add (src/privacy-requests/
// lifecycle.ts: access delivery's message and download link). Each hook makes its share ready first; the
// statement that completes the request stores the shares (preparedMoveRepository.completeWith), so a
// completion is one statement. A hook whose work needs the completing transaction (an erasure's message
// reads its summary and records the recipients told) makes it a transaction, with every hook run in it.
import type { Services } from '../../services.ts';
import { hooksOf, type StatementShare } from '../lifecycle.ts';
import { transitionEntry } from '../log-repository.ts';
import { preparedMoveRepository } from '../prepared-move-repository.ts';
import { type Move, privacyRequestRepository as repo, type RequestRow } from '../repository.ts';
import type { PolicyEmbed } from '../view.ts';

/** Applies `move` (to complete) with the completion hooks' work; undefined when another move won. */
export async function completeRequest(
  services: Services,
  policy: PolicyEmbed,
  move: Move,
  row: RequestRow,
): Promise<RequestRow | undefined> {
  const completed: RequestRow = { ...row, ...move.changes, id: move.id, status: 'complete' };
  const hooks = hooksOf('completion');
  const shares: StatementShare[] = [];
  for (const hook of hooks) {
    const share = await hook.prepare(services.db, services, { row: completed, policy });
    if (share === null) {
      return services.db.transaction(async (tx) => {
        const moved = await repo.move(tx, move);
        if (moved?.status === 'complete') {
          for (const each of hooks) await each.complete(tx, services, { row: moved, policy });
        }
        return moved;
      });
    }
    if (share) shares.push(share);
  }
  return preparedMoveRepository.completeWith(services.db, move, shares);
}

/** Completes a request whose steps are all confirmed (a run that starts after the last one). */
export async function completeAfterLastStep(services: Services, policy: PolicyEmbed, row: RequestRow) {
  const now = new Date();
  await completeRequest(
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
