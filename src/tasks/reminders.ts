// The daily reminder of overdue tasks, run by the sweep (at most once per sweep interval across every
// worker): each open task past its due time is reminded of once a day (tasks.reminded_on), as a note in
// its request's log and, when its assignee has an address, a mail to them through the outbox, in the same
// transaction. The address is the assignee operator's email when set, else their username when it is an
// email address; with neither, the log note is the only reminder (docs/human-steps.md).
import type { Queryable } from '../db/database.ts';
import { operatorRepository } from '../operators/repository.ts';
import type { Services } from '../services.ts';
import { queueSubjectMessages } from '../privacy-requests/messages/subject-messages.ts';
import { logRepository } from '../privacy-requests/log-repository.ts';
import { privacyRequestRepository } from '../privacy-requests/repository.ts';
import { CLOSED_STATUSES } from '../privacy-requests/statuses.ts';
import { isEmailAddress } from '../validation/email.ts';
import { taskRepository } from './repository.ts';

const BATCH = 100;

/** Answers how many tasks were reminded of. */
export async function remindOverdueTasks(
  services: Pick<Services, 'db' | 'keyring' | 'config'>,
): Promise<number> {
  let reminded = 0;
  for (;;) {
    const batch = await services.db.transaction(async (tx) => {
      const tasks = await taskRepository.lockOverdueToRemind(tx, BATCH);
      for (const task of tasks) {
        const request = await privacyRequestRepository.find(tx, task.privacy_request_id);
        // A request answered or withdrawn meanwhile needs no one reminded of its tasks.
        if (!request || CLOSED_STATUSES.includes(request.status)) continue;
        const address = task.assignee === null ? null : await reminderAddress(tx, task.assignee);
        const mailed = address !== null;
        if (mailed) {
          await queueSubjectMessages(tx, services, [
            {
              request,
              kind: 'task_overdue',
              email: address,
              details: {
                task: {
                  systemName: task.system_name,
                  instructions: task.instructions,
                  translations: task.translations,
                  dueAt: task.due_at,
                },
              },
            },
          ]);
        }
        await logRepository.appendLog(tx, request.id, [
          {
            kind: 'note',
            message: `the ${task.action} task in ${task.system_name} is overdue${mailed ? ': its assignee was reminded by mail' : ''}`,
            details: { task_id: task.id, system: task.system_key, due_at: task.due_at.toISOString() },
          },
        ]);
      }
      await taskRepository.markReminded(
        tx,
        tasks.map((task) => task.id),
      );
      return tasks.length;
    });
    reminded += batch;
    if (batch < BATCH) return reminded;
  }
}

async function reminderAddress(tx: Queryable, assignee: string): Promise<string | null> {
  const email = await operatorRepository.emailOf(tx, assignee);
  if (email !== null) return email;
  return isEmailAddress(assignee) ? assignee : null;
}
