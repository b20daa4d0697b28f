// Shapes of tasks: what a listing answers, and the bodies of complete, skip and assign. Every input is
// bounded: a task's data holds at most 50 values (a system has at most 50 fields) of 10,000 characters.
import Type from 'typebox';
import { ManualAction, ManualField } from '../manual-systems/schemas.ts';
import { MAX_EMAIL_LENGTH } from '../validation/email.ts';
import { named } from '../validation/schema-names.ts';

const Strict = { additionalProperties: false } as const;
export const MAX_VALUE_LENGTH = 10_000;
export const MAX_REASON_LENGTH = 2000;

export const TaskStatus = Type.Union(
  [Type.Literal('open'), Type.Literal('done'), Type.Literal('skipped'), Type.Literal('canceled')],
  { description: 'canceled: closed with its request, which was canceled before the task was done' },
);

export const TaskView = named(
  'Task',
  Type.Object(
    {
      id: Type.String(),
      privacy_request_id: Type.String(),
      system: Type.String({ description: "the manual system's key" }),
      system_name: Type.String(),
      action: ManualAction,
      status: TaskStatus,
      assignee: Type.Union([Type.String(), Type.Null()]),
      due_at: Type.String({ format: 'date-time' }),
      overdue: Type.Boolean({ description: 'open and past its due time' }),
      created_at: Type.String({ format: 'date-time' }),
      done_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      done_by: Type.Union([Type.String(), Type.Null()]),
      skip_reason: Type.Union([Type.String(), Type.Null()]),
      fields: Type.Array(ManualField, { description: 'what completing it asks for (the form)' }),
      instructions: Type.String(),
    },
    Strict,
  ),
);
export type TaskView = Type.Static<typeof TaskView>;

export const TaskListQuery = Type.Object(
  {
    status: Type.Optional(TaskStatus),
    assignee: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    overdue: Type.Optional(Type.Boolean()),
    page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
    size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50 })),
  },
  Strict,
);
export type TaskListQuery = Type.Static<typeof TaskListQuery>;

export const TaskIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }, Strict);

export const TaskData = Type.Record(
  Type.String({ maxLength: 64 }),
  Type.String({ maxLength: MAX_VALUE_LENGTH }),
  {
    maxProperties: 50,
    description: "field name -> value, the system's fields only",
  },
);

export const CompleteBody = Type.Object({ data: Type.Optional(TaskData) }, Strict);
export type CompleteBody = Type.Static<typeof CompleteBody>;

export const SkipBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: MAX_REASON_LENGTH, pattern: '\\S' }) },
  Strict,
);
export type SkipBody = Type.Static<typeof SkipBody>;

export const AssignBody = Type.Object(
  { assignee: Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()]) },
  Strict,
);
export type AssignBody = Type.Static<typeof AssignBody>;

export const InviteBody = Type.Object(
  {
    respondent_email: Type.Optional(
      Type.String({
        format: 'email',
        maxLength: MAX_EMAIL_LENGTH,
        description: "where the link goes; the manual system's respondent_email when left out",
      }),
    ),
  },
  Strict,
);
export type InviteBody = Type.Static<typeof InviteBody>;

export const InviteAnswer = Type.Object(
  { expires_at: Type.String({ format: 'date-time', description: 'when the link stops working' }) },
  Strict,
);
