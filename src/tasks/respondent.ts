// Respondents outside the company: POST /v1/task/{id}/invite mails a link /respond/{token} (through the
// outbox, in the transaction of the invite) to the system's respondent_email or the one given. The token
// is 32 random bytes; only its SHA-256 is stored. A link works once, for 7 days and until the respondent is
// invited again (which revokes the earlier links); its answer completes the task as the respondent, in the
// transaction that spends the link, so a second use changes nothing.
// Nothing here logs the token or the respondent's address.
import { createHash, randomBytes } from 'node:crypto';
import { type ChangeActor, recordChange } from '../audit/audit-log.ts';
import { badRequest, conflict, DomainError, notFound } from '../errors.ts';
import { queueSubjectMessages } from '../privacy-requests/messages/subject-messages.ts';
import { publicBaseUrl } from '../privacy-center-settings/public-url.ts';
import { manualSystemRepository } from '../manual-systems/repository.ts';
import { openIdentity, typedIdentities } from '../privacy-requests/identity.ts';
import { logRepository } from '../privacy-requests/log-repository.ts';
import { privacyRequestRepository, type RequestRow } from '../privacy-requests/repository.ts';
import type { Services } from '../services.ts';
import { type TaskRow, taskRepository } from './repository.ts';
import { respondentLinkRepository } from './respondent-repository.ts';
import { completeTaskIn } from './service.ts';
import type { TaskData } from './task-data.ts';

export const RESPONDENT_LINK_TTL_SECONDS = 7 * 86_400;

const hashOf = (token: string) => createHash('sha256').update(token).digest();

export function respondentUrl(config: Services['config'], token: string): string {
  return `${publicBaseUrl(config)}/respond/${token}`;
}

/** Mails the respondent a fresh link to the open task; answers when the link expires. */
export async function inviteRespondent(
  services: Pick<Services, 'db' | 'keyring' | 'config'>,
  by: ChangeActor,
  taskId: string,
  email: string | undefined,
): Promise<{ expires_at: string }> {
  return services.db.transaction(async (tx) => {
    const task = await taskRepository.lock(tx, taskId);
    if (!task) throw notFound(`No task with id ${taskId}.`);
    if (task.status !== 'open') throw conflict(`The task ${taskId} is already ${task.status}.`);
    const to = email ?? task.respondent_email ?? undefined;
    if (!to) {
      throw badRequest(
        'respondent_email: give one; the manual system of this task names no respondent to invite.',
      );
    }
    const request = await privacyRequestRepository.find(tx, task.privacy_request_id);
    if (!request) throw notFound(`No task with id ${taskId}.`);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + RESPONDENT_LINK_TTL_SECONDS * 1000);
    // Inviting again revokes the earlier links: only the latest mailed one answers the task.
    await respondentLinkRepository.revokeUnused(tx, taskId);
    await respondentLinkRepository.insert(tx, hashOf(token), taskId, expiresAt);
    await queueSubjectMessages(tx, services, [
      {
        request,
        kind: 'respondent_invite',
        email: to,
        details: {
          task: {
            systemName: task.system_name,
            instructions: task.instructions,
            translations: task.translations,
            url: respondentUrl(services.config, token),
            expiresAt,
          },
        },
      },
    ]);
    await logRepository.appendLog(tx, request.id, [
      {
        kind: 'note',
        message: `a respondent was invited to answer the ${task.action} task in ${task.system_name}`,
        details: { task_id: taskId, system: task.system_key, link_expires_at: expiresAt.toISOString() },
      },
    ]);
    await recordChange(tx, by, 'task.invite', { task_id: taskId, privacy_request_id: request.id });
    return { expires_at: expiresAt.toISOString() };
  });
}

/** One of the subject's identifiers as the respondent's page shows it. */
export interface Identifier {
  kind: string;
  value: string;
}

/**
 * What /respond/{token} shows: the task's form with the request's language (undefined for a request that
 * stores none: the default language), or why the link works no more.
 */
export type RespondentLinkState =
  | { kind: 'form'; task: TaskRow; identifiers: Identifier[]; requestLanguage: string | undefined }
  | { kind: 'used' | 'expired' | 'answered' | 'unknown' };

/**
 * The request's identifiers of the kinds the task's manual system names (its `identities`, read now: a
 * system deleted since shows none), in that order; nothing of the subject beyond them.
 */
async function identifiersFor(
  services: Pick<Services, 'db' | 'keyring'>,
  task: TaskRow,
  request: RequestRow | undefined,
): Promise<Identifier[]> {
  const system = await manualSystemRepository.find(services.db, task.system_key);
  if (!system || system.identities.length === 0) return [];
  if (!request?.identity_sealed) return [];
  const known = typedIdentities(openIdentity(services.keyring, request.id, request.identity_sealed));
  return system.identities.flatMap((kind) =>
    known.filter((identity) => identity.kind === kind && identity.value.trim() !== ''),
  );
}

export async function respondentLinkState(
  services: Pick<Services, 'db' | 'keyring'>,
  token: string,
): Promise<RespondentLinkState> {
  const link = await respondentLinkRepository.find(services.db, hashOf(token));
  if (!link) return { kind: 'unknown' };
  if (link.used_at) return { kind: 'used' };
  if (link.expires_at <= new Date()) return { kind: 'expired' };
  const task = await taskRepository.find(services.db, link.task_id);
  if (!task) return { kind: 'unknown' };
  if (task.status !== 'open') return { kind: 'answered' };
  const request = await privacyRequestRepository.find(services.db, task.privacy_request_id);
  return {
    kind: 'form',
    task,
    identifiers: await identifiersFor(services, task, request),
    requestLanguage: request?.language ?? undefined,
  };
}

/**
 * The respondent's answer: spends the link and completes the task as theirs, in one transaction. Answers
 * the link's state when it cannot be used (and then nothing changes).
 */
export async function answerAsRespondent(
  services: Pick<Services, 'db' | 'keyring' | 'queue'>,
  token: string,
  data: TaskData,
): Promise<'done' | Exclude<RespondentLinkState['kind'], 'form'>> {
  try {
    return await services.db.transaction(async (tx) => {
      const taskId = await respondentLinkRepository.spend(tx, hashOf(token));
      if (!taskId) throw new LinkUnusable();
      await completeTaskIn(tx, services, { name: 'respondent', respondent: true }, taskId, data);
      return 'done' as const;
    });
  } catch (error) {
    if (error instanceof LinkUnusable) {
      const state = await respondentLinkState(services, token);
      return state.kind === 'form' ? 'used' : state.kind;
    }
    if (error instanceof DomainError && error.kind === 'conflict') return 'answered';
    throw error;
  }
}

class LinkUnusable extends Error {}
