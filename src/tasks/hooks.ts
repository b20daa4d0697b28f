// What manual tasks take part in, in a privacy request's life (src/privacy-requests/lifecycle.ts): after
// its rules ran, the tasks its manual systems call for (the request waits in requires_input while any is
// open); on cancel, its open tasks close; the sweep reminds of overdue ones; an overdue task makes its
// request stuck; what access tasks gave joins the request's access results.
import type { LifecycleHooks } from '../privacy-requests/lifecycle.ts';
import { accessDataOfTasks } from './access-data.ts';
import { openTasks, plannedTasks } from './creation.ts';
import { remindOverdueTasks } from './reminders.ts';
import { overdueTaskOf } from './repository.ts';
import { cancelTasksOf } from './service.ts';

export const taskHooks: LifecycleHooks = {
  async afterRules(db, services, { row, policy }) {
    const tasks = await plannedTasks(db, policy, row, services.config.taskMarginDays);
    if (tasks.length === 0) return undefined;
    return { description: `${tasks.length} manual task(s)`, open: (tx) => openTasks(tx, row.id, tasks) };
  },
  onCancel: (tx, _services, { row, by }) => cancelTasksOf(tx, row.id, by),
  sweep: async (services) => {
    await remindOverdueTasks(services);
  },
  stuckWhen: (requestId) => overdueTaskOf(requestId),
  stuckReason: 'task_overdue',
  async accessResults(services, requestId) {
    const manualSystems = await accessDataOfTasks(services, requestId);
    return manualSystems.length > 0 ? { manual_systems: manualSystems } : undefined;
  },
};
