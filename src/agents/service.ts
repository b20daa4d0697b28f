// Authorized agents (CCPA §7063, docs/decisions.md#more-ways-in). A public request may name an agent: the
// code goes to the agent's email, and the right code proves the agent's email only. The subject is then
// mailed a single-use link (its SHA-256 kept, valid AGENT_CONFIRMATION_TTL_SECONDS) to confirm that the
// agent acts for them; their confirmation proves the subject's email only (the link went there: nothing
// else typed beside it, a phone number say, is proved by it), and only then is the request admitted
// through the one way in. An operator who saw a power of attorney may accept the agent instead, with a
// reason and the identities the document establishes (audited with the operator's name). Until one of
// them, the request stays identity_unverified: nothing runs, no webhook is called. Every value nothing
// proved stays in the request's unverified identity (docs/decisions.md#whom-lethe-acts-for). Never logs
// an agent's or a subject's value.
import { createHash, randomBytes } from 'node:crypto';
import { type ChangeActor, recordChange } from '../audit/audit-log.ts';
import { principalName } from '../auth/scopes.ts';
import type { Queryable } from '../db/database.ts';
import { badRequest, conflict, invalid, notFound } from '../errors.ts';
import { queueSubjectMessages } from '../privacy-requests/messages/subject-messages.ts';
import { confirmAgentUrl } from '../privacy-center-settings/public-url.ts';
import { admitVerified } from '../privacy-requests/intake.ts';
import {
  type Identity,
  openIdentity,
  contactEmail,
  openUnverifiedIdentity,
  sealIdentity,
  sealUnverifiedIdentity,
} from '../privacy-requests/identity.ts';
import {
  establishedByPowerOfAttorney,
  type Proved,
  provedByAgentConfirmation,
} from '../privacy-requests/trusted-identity.ts';
import { logRepository } from '../privacy-requests/log-repository.ts';
import { privacyRequestRepository as requests, type RequestRow } from '../privacy-requests/repository.ts';
import type { Services } from '../services.ts';
import { refuseAtMailCap } from '../outbox/recipient-caps.ts';
import { agentRepository, type AgentRow } from './repository.ts';
import { type Agent, openAgent, sealAgent } from './sealing.ts';

/** An agent's name is their own words in the organisation's mail: short, and quoted as theirs. */
export const AGENT_NAME_MAX_LENGTH = 100;

/**
 * Why an agent cannot act for the subject whose email is `subjectEmail`, in a sentence, or undefined: a
 * name that is long, spans lines or carries a web address (it is quoted in a mail the organisation sends),
 * or the subject's own address given as the agent's (the "agent" would confirm themselves).
 */
export function agentProblem(agent: Agent, subjectEmail: string | undefined): string | undefined {
  if (agent.name.length > AGENT_NAME_MAX_LENGTH)
    return `agent.name must be at most ${AGENT_NAME_MAX_LENGTH} characters.`;
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u001f\u007f]|:\/\/|www\./i.test(agent.name))
    return 'agent.name must be a name on one line, without a web address.';
  if (subjectEmail !== undefined && agent.email.trim().toLowerCase() === subjectEmail.trim().toLowerCase())
    return "agent.email must differ from identity.email: an agent acts for someone else, and the subject confirms the agent at the subject's own address. Asking for yourself, leave the agent fields empty.";
  return undefined;
}

/** What `submitted_by` says of a request an authorized agent made. */
export const SUBMITTED_BY_AGENT = 'authorized_agent';
/** As long as an unverified request lives (the sweep cancels it after 24 hours). */
export const AGENT_CONFIRMATION_TTL_SECONDS = 24 * 3600;

type AgentServices = Pick<Services, 'db' | 'keyring' | 'config' | 'queue'>;

const tokenHash = (token: string) => createHash('sha256').update(token).digest();

export async function recordAgent(
  tx: Queryable,
  services: Pick<Services, 'keyring'>,
  id: string,
  agent: Agent,
) {
  await agentRepository.insert(tx, id, sealAgent(services.keyring, id, agent));
}

/** The agent of a request, opened (for the code mail and the operator's view), or undefined. */
export async function agentOf(
  db: Queryable,
  services: Pick<Services, 'keyring'>,
  id: string,
): Promise<(Agent & { row: AgentRow }) | undefined> {
  const row = await agentRepository.find(db, id);
  return row ? { ...openAgent(services.keyring, id, row.agent_sealed), row } : undefined;
}

/** An operator's request made for an agent: recorded as authorised by the operator's power of attorney. */
export async function recordOperatorAgent(
  tx: Queryable,
  services: Pick<Services, 'keyring'>,
  id: string,
  agent: Agent,
  by: ChangeActor,
): Promise<void> {
  await recordAgent(tx, services, id, agent);
  await agentRepository.authorise(
    tx,
    id,
    'power_of_attorney',
    principalName(by.principal),
    'request made by an operator on the agent’s behalf',
  );
}

/** An agent's email is proved and the subject has not confirmed them yet (what the status page says). */
export async function awaitsAgentConfirmation(
  db: Queryable,
  row: Pick<RequestRow, 'id' | 'status' | 'submitted_by'>,
): Promise<boolean> {
  if (row.status !== 'identity_unverified' || row.submitted_by !== SUBMITTED_BY_AGENT) return false;
  const agent = await agentRepository.find(db, row.id);
  return Boolean(agent?.email_verified_at && !agent.authorization_kind);
}

/** Every value typed on the request, proved or not (the agent path trusts none of them at submission). */
function givenIdentity(services: Pick<Services, 'keyring'>, row: RequestRow): Identity {
  return {
    ...(row.identity_sealed ? openIdentity(services.keyring, row.id, row.identity_sealed) : {}),
    ...openUnverifiedIdentity(services.keyring, row.id, row.unverified_identity_sealed),
  };
}

/**
 * The request's identities once a proof split them: the subject's address (the confirmation link went
 * there, or the operator's document names the subject) and the identity keys a power of attorney
 * establishes. Every other value the agent typed (a phone number beside the address) stays unverified:
 * never matched.
 */
function provedIdentity(services: Pick<Services, 'keyring'>, row: RequestRow, { trusted, unproven }: Proved) {
  return {
    identity_sealed: sealIdentity(services.keyring, row.id, trusted),
    unverified_identity_sealed:
      Object.keys(unproven).length > 0 ? sealUnverifiedIdentity(services.keyring, row.id, unproven) : null,
    recipient_index: null,
    identity_verified_at: new Date(),
  };
}

/**
 * The agent gave the right code (in the caller's transaction, the request locked): their email is
 * proved, and the subject is mailed the link to confirm them. The request stays identity_unverified.
 */
export async function agentEmailVerified(
  tx: Queryable,
  services: Pick<Services, 'keyring' | 'config'>,
  row: RequestRow,
  agent: Agent,
): Promise<void> {
  // Every mail to the subject's address counts against its caps, whoever caused it (a 429 rolls back).
  const subjectEmail = contactEmail(services.keyring, row);
  if (!subjectEmail) throw new Error(`the agent's request ${row.id} has no subject email`);
  await refuseAtMailCap(tx, services.keyring, subjectEmail);
  const token = randomBytes(32).toString('base64url');
  const expiresAt = await agentRepository.markEmailVerified(
    tx,
    row.id,
    tokenHash(token),
    AGENT_CONFIRMATION_TTL_SECONDS,
  );
  await queueSubjectMessages(tx, services, [
    {
      request: row,
      kind: 'agent_confirmation',
      details: {
        agent: { name: agent.name, confirmUrl: confirmAgentUrl(services.config, token), expiresAt },
      },
    },
  ]);
  await logRepository.appendLogs(tx, [
    {
      id: row.id,
      entry: {
        kind: 'note',
        message: "the agent's email is verified; the subject was mailed a link to confirm the agent",
      },
    },
  ]);
}

export interface ConfirmationView {
  privacyRequestId: string;
  agentName: string;
  state: 'awaiting' | 'confirmed' | 'expired';
}

async function lockConfirmation(tx: Queryable, services: Pick<Services, 'keyring'>, token: string) {
  const found = /^[A-Za-z0-9_-]{43}$/.test(token)
    ? await agentRepository.lockByToken(tx, tokenHash(token))
    : undefined;
  if (!found)
    throw notFound('This confirmation link is not known. Use the link from the most recent email.', {
      key: 'refusal.agent_link_unknown',
    });
  const view: ConfirmationView = {
    privacyRequestId: found.privacy_request_id,
    agentName: openAgent(services.keyring, found.privacy_request_id, found.agent_sealed).name,
    state: found.authorization_kind ? 'confirmed' : found.expired ? 'expired' : 'awaiting',
  };
  return { found, view };
}

/** What the confirmation page shows for a link (GET: reading it changes nothing, mail scanners follow links). */
export async function readConfirmation(services: AgentServices, token: string): Promise<ConfirmationView> {
  return services.db.transaction(async (tx) => (await lockConfirmation(tx, services, token)).view);
}

/**
 * The subject confirms their agent: the request is admitted (pending, then on). A link used before answers
 * 409 and changes nothing; an expired one 410-like 400; a request no longer awaiting (canceled) 400.
 */
export async function confirmAgent(services: AgentServices, token: string): Promise<ConfirmationView> {
  return services.db.transaction(async (tx) => {
    const { found, view } = await lockConfirmation(tx, services, token);
    if (view.state === 'confirmed')
      throw conflict('This link was already used: you confirmed your agent before.', {
        key: 'refusal.agent_link_used',
      });
    if (view.state === 'expired')
      throw badRequest('This link has expired; your agent can submit the request again.', {
        key: 'refusal.agent_link_expired',
      });
    const row = await requests.lock(tx, found.privacy_request_id);
    if (row?.status !== 'identity_unverified')
      throw badRequest(`This request can no longer be confirmed; it is ${row?.status ?? 'gone'}.`, {
        key: 'refusal.agent_request_closed',
      });
    await agentRepository.authorise(tx, row.id, 'subject_confirmed', 'subject', null);
    await admitVerified(
      tx,
      services,
      row,
      provedIdentity(services, row, provedByAgentConfirmation(givenIdentity(services, row))),
      "the subject confirmed their authorized agent through the link mailed to the subject's address; any other identity given stays unverified",
    );
    return { ...view, state: 'confirmed' };
  });
}

/**
 * An operator saw a power of attorney: the agent is accepted without the subject's confirmation. The
 * operator names which of the request's identities the document establishes (`identities`, identity keys
 * such as phone_number); those and the subject's address become trusted, every other value stays
 * unverified. A key the request does not carry is refused (422) and nothing changes.
 */
export async function acceptAgent(
  services: AgentServices,
  id: string,
  acceptance: { reason: string; identities: readonly string[] },
  by: ChangeActor,
): Promise<void> {
  const { reason } = acceptance;
  const identities = [...new Set(acceptance.identities)];
  await services.db.transaction(async (tx) => {
    const row = await requests.lock(tx, id);
    if (!row) throw notFound(`No privacy request with id ${id}.`);
    const agent = await agentRepository.find(tx, id);
    if (!agent) throw badRequest(`Request ${id} was not made by an authorized agent.`);
    if (agent.authorization_kind) throw badRequest(`The agent of request ${id} is already authorised.`);
    if (row.status !== 'identity_unverified')
      throw badRequest(`Request ${id} is not awaiting its agent's authorisation; it is ${row.status}.`);
    if (!agent.email_verified_at)
      throw badRequest(`The agent of request ${id} has not verified their email yet.`);
    const carried = Object.keys(givenIdentity(services, row));
    const foreign = identities.find((key) => !carried.includes(key));
    if (foreign !== undefined)
      throw invalid(
        `identities names ${foreign}, which request ${id} does not carry; name only identities given on it (${carried.join(', ')}).`,
      );
    const operator = principalName(by.principal);
    await agentRepository.authorise(tx, id, 'power_of_attorney', operator, reason, identities);
    await recordChange(tx, by, 'privacy-request.agent.accept', {
      privacy_request_id: id,
      operator,
      identities,
    });
    await admitVerified(
      tx,
      services,
      row,
      provedIdentity(services, row, establishedByPowerOfAttorney(givenIdentity(services, row), identities)),
      `${operator} accepted the authorized agent's power of attorney, establishing ${['email', ...identities.filter((key) => key !== 'email')].join(', ')}: ${reason}`,
    );
  });
}

export interface AgentView {
  name: string;
  email: string;
  email_verified_at: string | null;
  authorization: 'subject_confirmed' | 'power_of_attorney' | null;
  authorized_at: string | null;
  authorized_by: string | null;
  reason: string | null;
  identities: string[];
}

/** Who acted for the subject and how they were authorised, for operators. */
export async function agentView(services: AgentServices, id: string): Promise<AgentView> {
  const agent = await agentOf(services.db, services, id);
  if (!agent) throw notFound(`Request ${id} was not made by an authorized agent.`);
  return {
    name: agent.name,
    email: agent.email,
    email_verified_at: agent.row.email_verified_at?.toISOString() ?? null,
    authorization: agent.row.authorization_kind,
    authorized_at: agent.row.authorized_at?.toISOString() ?? null,
    authorized_by: agent.row.authorized_by,
    reason: agent.row.authorization_reason,
    identities: agent.row.authorized_identities,
  };
}
