// The task inbox: tasks of manual systems (docs/human-steps.md), soonest due first, filtered to mine, open,
// overdue or all, each with its due date; assign or reassign in place; mail a respondent outside the
// company the link to answer; and the task's form, generated from its system's fields, to complete it (access data, or an erasure confirmed) or skip it with a reason.
import { type FormEvent, useState } from 'react';
import { Link } from 'wouter';
import { answer } from '../api.ts';
import {
  Empty,
  ErrorNotice,
  Field,
  Loading,
  PageHeader,
  StatusBadge,
  SuccessNotice,
} from '../components.tsx';
import { formatDateTime } from '../format.ts';
import { useAction, useResource } from '../hooks.ts';
import { holds, useSession } from '../session.tsx';
import type { Task } from '../schema.ts';

type View = 'mine' | 'open' | 'overdue' | 'all';
const REFRESH_MS = 10_000;

function TaskForm(props: { task: Task; onChanged: () => void }) {
  const { api } = useSession();
  const [values, setValues] = useState<Record<string, string>>({});
  const [reason, setReason] = useState('');
  const action = useAction();
  const id = props.task.id;

  async function complete(event: FormEvent) {
    event.preventDefault();
    const data = Object.fromEntries(Object.entries(values).filter(([, value]) => value.trim() !== ''));
    const ok = await action.run(() =>
      answer(api.POST('/v1/task/{id}/complete', { params: { path: { id } }, body: { data } })),
    );
    if (ok) props.onChanged();
  }

  async function skip() {
    const ok = await action.run(() =>
      answer(api.POST('/v1/task/{id}/skip', { params: { path: { id } }, body: { reason: reason.trim() } })),
    );
    if (ok) props.onChanged();
  }

  return (
    <form className="task-form" onSubmit={complete} aria-label={`Task for ${props.task.system_name}`}>
      {props.task.instructions ? <p className="instructions">{props.task.instructions}</p> : null}
      {props.task.fields.map((field) => (
        <Field key={field.name} label={field.label}>
          {(fieldId) => (
            <textarea
              id={fieldId}
              rows={2}
              maxLength={10_000}
              value={values[field.name] ?? ''}
              onChange={(event) => setValues({ ...values, [field.name]: event.target.value })}
            />
          )}
        </Field>
      ))}
      <button type="submit" className="primary" disabled={action.pending}>
        {props.task.action === 'erasure' ? 'Confirm erasure' : 'Complete'}
      </button>
      <Field label="Reason to skip">
        {(fieldId) => (
          <input
            id={fieldId}
            value={reason}
            maxLength={2000}
            onChange={(event) => setReason(event.target.value)}
          />
        )}
      </Field>
      <button type="button" disabled={action.pending || reason.trim() === ''} onClick={() => void skip()}>
        Skip
      </button>
      <ErrorNotice message={action.error} />
    </form>
  );
}

function AssignForm(props: { task: Task; onChanged: () => void }) {
  const { api } = useSession();
  const [assignee, setAssignee] = useState(props.task.assignee ?? '');
  const action = useAction();
  async function assign(event: FormEvent) {
    event.preventDefault();
    const ok = await action.run(() =>
      answer(
        api.PATCH('/v1/task/{id}', {
          params: { path: { id: props.task.id } },
          body: { assignee: assignee.trim() || null },
        }),
      ),
    );
    if (ok) props.onChanged();
  }
  return (
    <form className="assign" onSubmit={assign} aria-label={`Assign the task for ${props.task.system_name}`}>
      <Field label="Assignee">
        {(fieldId) => (
          <input id={fieldId} value={assignee} onChange={(event) => setAssignee(event.target.value)} />
        )}
      </Field>
      <button type="submit" disabled={action.pending}>
        Assign
      </button>
      <ErrorNotice message={action.error} />
    </form>
  );
}

/**
 * Mails a respondent outside the company a single-use link to answer the task (POST /v1/task/{id}/invite):
 * to the address typed here, else to the system's respondent; the API's sentence says when neither is set.
 */
function InviteForm(props: { task: Task }) {
  const { api } = useSession();
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState('');
  const action = useAction();
  async function invite(event: FormEvent) {
    event.preventDefault();
    setSent('');
    const body = email.trim() ? { respondent_email: email.trim() } : {};
    let expiresAt = '';
    const ok = await action.run(async () => {
      const answered = await answer(
        api.POST('/v1/task/{id}/invite', { params: { path: { id: props.task.id } }, body }),
      );
      expiresAt = answered.expires_at;
    });
    if (ok) setSent(`Link sent; it works once, until ${formatDateTime(expiresAt)}.`);
  }
  return (
    <form
      className="assign"
      onSubmit={invite}
      aria-label={`Invite a respondent for ${props.task.system_name}`}
    >
      <Field label="Respondent's email" hint="empty: the system's respondent">
        {(fieldId, describedBy) => (
          <input
            id={fieldId}
            type="email"
            aria-describedby={describedBy}
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        )}
      </Field>
      <button type="submit" disabled={action.pending}>
        Send the link
      </button>
      <ErrorNotice message={action.error} />
      {sent ? <SuccessNotice message={sent} /> : null}
    </form>
  );
}

export function TasksPage() {
  const { api, info } = useSession();
  const [view, setView] = useState<View>('open');
  const [opened, setOpened] = useState<string | null>(null);
  const me = info.username ?? info.client_id;
  const canChange = holds(info.scopes, 'task:update');
  const query =
    view === 'mine'
      ? { status: 'open' as const, assignee: me }
      : view === 'open'
        ? { status: 'open' as const }
        : view === 'overdue'
          ? { overdue: true }
          : {};
  const tasks = useResource(
    () => answer(api.GET('/v1/task', { params: { query: { ...query, size: 500 } } })),
    view,
    REFRESH_MS,
  );
  const items = tasks.data?.items ?? [];
  return (
    <>
      <PageHeader title="Tasks">
        <button type="button" onClick={() => void tasks.reload()}>
          Refresh
        </button>
      </PageHeader>
      <form className="filters" aria-label="Filter tasks" onSubmit={(event) => event.preventDefault()}>
        <Field label="Show">
          {(fieldId) => (
            <select id={fieldId} value={view} onChange={(event) => setView(event.target.value as View)}>
              <option value="mine">mine (open)</option>
              <option value="open">open</option>
              <option value="overdue">overdue</option>
              <option value="all">all</option>
            </select>
          )}
        </Field>
      </form>
      <ErrorNotice message={tasks.error} />
      {tasks.loading && !tasks.data ? (
        <Loading what="tasks" />
      ) : items.length === 0 ? (
        <Empty>No task here. Requests get tasks from the manual systems that list their action.</Empty>
      ) : (
        <table className="responsive tasks">
          <caption className="visually-hidden">Tasks, soonest due first</caption>
          <thead>
            <tr>
              <th scope="col">Due</th>
              <th scope="col">System</th>
              <th scope="col">Status</th>
              <th scope="col">Assignee</th>
              <th scope="col">Request</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((task) => (
              <tr key={task.id} data-task-id={task.id}>
                <td data-label="Due">
                  <span className={task.overdue ? 'urgent' : undefined}>
                    {formatDateTime(task.due_at)}
                    {task.overdue ? ' (overdue)' : ''}
                  </span>
                </td>
                <td data-label="System">
                  {task.system_name} ({task.action})
                </td>
                <td data-label="Status">
                  <StatusBadge status={task.status} />
                </td>
                <td data-label="Assignee">{task.assignee ?? '—'}</td>
                <td data-label="Request">
                  <Link href={`/requests/${encodeURIComponent(task.privacy_request_id)}`}>
                    {task.privacy_request_id}
                  </Link>
                </td>
                <td data-label="Actions">
                  {canChange && task.status === 'open' ? (
                    opened === task.id ? (
                      <>
                        <TaskForm task={task} onChanged={() => void tasks.reload()} />
                        <AssignForm task={task} onChanged={() => void tasks.reload()} />
                        <InviteForm task={task} />
                      </>
                    ) : (
                      <button type="button" onClick={() => setOpened(task.id)}>
                        Open
                      </button>
                    )
                  ) : (
                    (task.skip_reason ?? task.done_by ?? '')
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
