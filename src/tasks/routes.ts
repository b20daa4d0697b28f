// HTTP face of tasks: the inbox listing (task:read), a request's tasks, and complete, skip, assign
// and invite (task:update; a viewer only reads). Domain rules live in service.ts and respondent.ts.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { changeActorOf, principalOf } from '../http/authorize.ts';
import { ErrorDetail, managementErrors, OPTIONAL_BODY, Page, security } from '../http/schemas.ts';
import { principalName } from '../auth/scopes.ts';
import type { Services } from '../services.ts';
import {
  AssignBody,
  CompleteBody,
  InviteAnswer,
  InviteBody,
  SkipBody,
  TaskIdParams,
  TaskListQuery,
  TaskView,
} from './schemas.ts';
import { inviteRespondent } from './respondent.ts';
import { assignTask, completeTask, listTasks, readTask, skipTask, tasksOfRequest } from './service.ts';

const tags = ['tasks'];
const errors = { 404: ErrorDetail, ...managementErrors };
type IdRoute = { Params: { id: string } };

export function taskRoutes(services: Services): FastifyPluginAsync {
  const { db } = services;
  return async (app) => {
    // Completing with nothing to give (an erasure confirmed) may send no body at all.
    const emptyBodyIsObject = async (request: FastifyRequest) => {
      request.body ??= {};
    };

    app.get<{ Querystring: TaskListQuery }>(
      '/task',
      {
        onRequest: app.authorize('task:read'),
        schema: {
          tags,
          summary: 'List tasks, soonest due first, filtered by status, assignee or overdue.',
          security,
          querystring: TaskListQuery,
          response: { 200: Page(TaskView), ...managementErrors },
        },
      },
      async (request) => {
        const { status, assignee, overdue, page, size } = request.query;
        return listTasks(db, { status, assignee, overdue }, page ?? 1, size ?? 50);
      },
    );

    app.get<IdRoute>(
      '/task/:id',
      {
        onRequest: app.authorize('task:read'),
        schema: {
          tags,
          summary: 'One task, with the fields and instructions of its system.',
          security,
          params: TaskIdParams,
          response: { 200: TaskView, ...errors },
        },
      },
      async (request) => readTask(db, request.params.id),
    );

    app.get<IdRoute>(
      '/privacy-request/:id/task',
      {
        onRequest: app.authorize('task:read'),
        schema: {
          tags,
          summary: 'The tasks of one privacy request.',
          security,
          params: TaskIdParams,
          response: { 200: Type.Array(TaskView), ...errors },
        },
      },
      async (request) => tasksOfRequest(db, request.params.id),
    );

    app.post<IdRoute & { Body: CompleteBody | undefined }>(
      '/task/:id/complete',
      {
        onRequest: app.authorize('task:update'),
        preValidation: emptyBodyIsObject,
        schema: {
          tags,
          summary:
            "Complete an open task (409 when it is not open). An access task's data goes into the access package under the system's name; an erasure task's completion confirms the erasure.",
          security,
          params: TaskIdParams,
          body: CompleteBody,
          ...OPTIONAL_BODY,
          response: { 200: TaskView, 409: ErrorDetail, ...errors },
        },
      },
      async (request) => {
        const by = { name: principalName(principalOf(request)), change: changeActorOf(request) };
        const task = await completeTask(services, by, request.params.id, request.body?.data);
        request.log.info({ task_id: task.id, privacy_request_id: task.privacy_request_id }, 'task completed');
        return task;
      },
    );

    app.post<IdRoute & { Body: SkipBody }>(
      '/task/:id/skip',
      {
        onRequest: app.authorize('task:update'),
        schema: {
          tags,
          summary: 'Skip an open task, saying why (409 when it is not open).',
          security,
          params: TaskIdParams,
          body: SkipBody,
          response: { 200: TaskView, 409: ErrorDetail, ...errors },
        },
      },
      async (request) => {
        const by = { name: principalName(principalOf(request)), change: changeActorOf(request) };
        const task = await skipTask(services, by, request.params.id, request.body.reason);
        request.log.info({ task_id: task.id, privacy_request_id: task.privacy_request_id }, 'task skipped');
        return task;
      },
    );

    app.post<IdRoute & { Body: InviteBody | undefined }>(
      '/task/:id/invite',
      {
        onRequest: app.authorize('task:update'),
        preValidation: emptyBodyIsObject,
        schema: {
          tags,
          summary:
            "Mail a respondent outside the company a link to answer the open task (single use, valid 7 days): the given respondent_email, else the system's (400 when neither is set).",
          security,
          params: TaskIdParams,
          body: InviteBody,
          ...OPTIONAL_BODY,
          response: { 200: InviteAnswer, 409: ErrorDetail, ...errors },
        },
      },
      async (request) => {
        const answer = await inviteRespondent(
          services,
          changeActorOf(request),
          request.params.id,
          request.body?.respondent_email,
        );
        request.log.info({ task_id: request.params.id }, 'task respondent invited');
        return answer;
      },
    );

    app.patch<IdRoute & { Body: AssignBody }>(
      '/task/:id',
      {
        onRequest: app.authorize('task:update'),
        schema: {
          tags,
          summary: 'Assign a task to an operator, or to nobody (null).',
          security,
          params: TaskIdParams,
          body: AssignBody,
          response: { 200: TaskView, ...errors },
        },
      },
      async (request) => assignTask(db, changeActorOf(request), request.params.id, request.body.assignee),
    );
  };
}
