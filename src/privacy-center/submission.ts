// Requests from the public, through the privacy center: only published policies, only the identity fields
// the action asks for. Nothing the public gives is trusted: every value is stored as the request's
// unverified identity (never matched, sent to callbacks apart), and the identity the rule run matches
// starts empty. With LETHE_SUBJECT_IDENTITY_VERIFICATION_REQUIRED the request waits in
// identity_unverified for the code mailed to its email (at most 3 such requests per address; the code
// proves the email, src/verification/); otherwise it is received at once and its values stay unverified
// for good, so it matches nothing (an operator sees them marked and can act on them with a request of
// their own). The public view of a request tells where it stands and nothing else. Never logs an identity.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import { agentProblem, awaitsAgentConfirmation, recordAgent, SUBMITTED_BY_AGENT } from '../agents/service.ts';
import {
  DO_NOT_SELL_OR_SHARE,
  isConsentOnly,
  recordOptOuts,
  SALE_AND_SHARING_USE,
} from '../consent/service.ts';
import { hasUpdateRule } from '../corrections/service.ts';
import { invalid, notFound } from '../errors.ts';
import { isEmailAddress } from '../validation/email.ts';
import { policyRepository } from '../policies/repository.ts';
import { admit, prepareRequest, receive } from '../privacy-requests/intake.ts';
import { logRepository } from '../privacy-requests/log-repository.ts';
import {
  type Identity,
  identityProblem,
  sealIdentity,
  sealUnverifiedIdentity,
  typedIdentities,
} from '../privacy-requests/identity.ts';
import { privacyRequestRepository as requests, type RequestRow } from '../privacy-requests/repository.ts';
import { NOTHING_PROVED } from '../privacy-requests/trusted-identity.ts';
import { loadPolicyEmbeds } from '../privacy-requests/view.ts';
import type { Services } from '../services.ts';
import { assertFewOpenRequests, refuseAtMailCap } from '../outbox/recipient-caps.ts';
import { issueVerificationCode } from '../verification/service.ts';
import type { PublicSubmission } from './schemas.ts';
import {
  publishedAction,
  readPrivacyCenterSettings,
  settingsIn,
} from '../privacy-center-settings/settings.ts';
import { REFERENCE_LANGUAGE, translate } from '../i18n/catalogue.ts';
import { readLocation, unknownLocationMessage } from '../deadlines/locations.ts';

export type Stage = 'received' | 'verified' | 'in_progress' | 'done' | 'denied' | 'canceled';

export interface PublicRequestView {
  id: string;
  status: string;
  stage: Stage;
  action_title: string;
  requested_at: string;
  identity_verified: boolean;
  awaiting_agent_confirmation: boolean;
}

/** The policy keys of the published actions whose forms differ from the plain one (formKinds). */
export interface FormKinds {
  optOuts: ReadonlySet<string>;
  corrections: ReadonlySet<string>;
}

const IDENTITY_FIELDS = ['email', 'phone_number'] as const;
const NOT_PUBLISHED = { key: 'refusal.not_published' } as const;

export function stageOf(row: Pick<RequestRow, 'status' | 'identity_verified_at'>): Stage {
  switch (row.status) {
    case 'identity_unverified':
      return 'received';
    case 'pending':
      return row.identity_verified_at ? 'verified' : 'received';
    case 'complete':
      return 'done';
    case 'denied':
      return 'denied';
    case 'canceled':
      return 'canceled';
    default:
      return 'in_progress';
  }
}

export class PublicSubmissionService {
  readonly #services: Services;

  constructor(services: Services) {
    this.#services = services;
  }

  /**
   * `signals.gpc`: the browser sent `Sec-GPC: 1`, which records an opt-out of sale and sharing for the
   * identities given, whatever the request is for (a GPC signal is an opt-out in itself: CCPA §7025).
   * `signals.language`: the language the visitor reads, stored with the request for every later message.
   */
  async submit(
    submission: PublicSubmission,
    signals: { gpc: boolean; language?: string } = { gpc: false },
    from: 'public_json' | 'public_form' = 'public_json',
  ): Promise<{ id: string; status: string }> {
    const { db, config, keyring } = this.#services;
    const settings = await readPrivacyCenterSettings(db);
    const action = publishedAction(settings, submission.policy_key);
    if (!action)
      throw notFound(
        `Policy ${submission.policy_key} is not published in the privacy center.`,
        NOT_PUBLISHED,
      );
    // Where the person lives decides whose law's clock runs (src/deadlines/locations.ts); a place that is
    // no ISO 3166 code is refused before anything is stored, in the visitor's words.
    const location = submission.location?.trim().toUpperCase() || null;
    if (location !== null && !readLocation(location).known)
      throw invalid(unknownLocationMessage(location), {
        key: 'refusal.location_unknown',
        values: { location },
      });
    const identity: Identity = {};
    for (const field of IDENTITY_FIELDS) {
      const value = submission.identity[field]?.trim();
      const asked = action.identity_inputs[field];
      if (value && !asked)
        throw invalid(`identity.${field} is not asked for by this action.`, {
          key: 'refusal.field_not_asked',
          values: { field },
        });
      if (!value && asked === 'required')
        throw invalid(`identity.${field} is required by this action.`, {
          key: 'refusal.field_required',
          values: { field },
        });
      if (value) identity[field] = value;
    }
    if (Object.keys(identity).length === 0)
      throw invalid('identity must give at least one of the fields this action asks for.', {
        key: 'refusal.identity_missing',
      });
    const problem = identityProblem(identity);
    if (problem)
      throw invalid(problem, {
        key:
          identity.email && !isEmailAddress(identity.email)
            ? 'refusal.email_invalid'
            : 'refusal.phone_invalid',
      });
    const policyId = (await policyRepository.idsByKey(db, [submission.policy_key])).get(
      submission.policy_key,
    );
    if (!policyId)
      throw notFound(
        `Policy ${submission.policy_key} is not published in the privacy center.`,
        NOT_PUBLISHED,
      );
    const rules = await policyRepository.rulesOf(db, [policyId]);
    // The two rules of corrections every way in shares (corrections/action.ts), said here first in the
    // visitor's words: a policy that corrects needs what to correct, any other takes none.
    const corrects = hasUpdateRule(rules);
    const correctionsGiven = (submission.corrections?.length ?? 0) > 0;
    if (corrects && !correctionsGiven)
      throw invalid(
        `corrections is required: policy ${submission.policy_key} corrects data, so name at least one attribute (<table>.<attribute>) and its right value.`,
        { key: 'refusal.correction_required' },
      );
    if (!corrects && correctionsGiven)
      throw invalid(
        `corrections applies only to a policy with an update rule; ${submission.policy_key} has none.`,
        { key: 'refusal.correction_not_offered' },
      );
    const consentOnly = isConsentOnly(rules);
    const preferences = submission.consent_preferences ?? (consentOnly ? DO_NOT_SELL_OR_SHARE : undefined);
    // An opt-out needs no proof of identity (CCPA §7026(d)): it gives nobody any data and erases nothing, so
    // it runs at once; its values stay unproven like every other (unverified_identity: the consent rule
    // records opt-outs for them, never an opt-in, and the webhooks get them apart). An opt-in needs the code.
    const agent = submission.agent && {
      name: submission.agent.name.trim(),
      email: submission.agent.email.trim(),
    };
    // The page's form reaches here without the schema: its agent fields are checked as the schema would.
    if (agent && !agent.email)
      throw invalid('agent.email is required: the agent verifies their own email.', {
        key: 'refusal.agent_email_required',
      });
    if (agent && !isEmailAddress(agent.email))
      throw invalid('agent.email must be an email address.', { key: 'refusal.agent_email_invalid' });
    if (agent && !agent.name)
      throw invalid('agent.name is required.', { key: 'refusal.agent_name_required' });
    if (agent && !identity.email)
      throw invalid(
        'identity.email is required with an agent: the subject confirms the agent through a link mailed there.',
        { key: 'refusal.agent_needs_subject_email' },
      );
    const agentRefusal = agent && agentProblem(agent, identity.email);
    if (agentRefusal) throw invalid(agentRefusal);
    // An agent always proves their own email, and the subject confirms them, whatever the request is for.
    const optOutOnly = !agent && consentOnly && (preferences ?? []).every((preference) => !preference.opt_in);
    const verify = Boolean(agent) || (config.identityVerificationRequired && !optOutOnly);
    const codeTo = agent?.email ?? identity.email;
    if (verify && !identity.email)
      throw invalid(
        'An identity without an email address cannot be verified; give an email address to receive the code.',
        { key: 'refusal.email_needed' },
      );

    const id = `pri_${randomUUID()}`;
    const prepared = await prepareRequest(
      db,
      keyring,
      { id: policyId, key: submission.policy_key, rules },
      { ...submission, consent_preferences: preferences },
      {
        id,
        externalId: null,
        source: 'privacy_center',
        location,
        ...(signals.language ? { language: signals.language } : {}),
        customFields: [],
        ...(agent ? { submittedBy: SUBMITTED_BY_AGENT } : {}),
        identitySealed: sealIdentity(keyring, id, NOTHING_PROVED),
        unverifiedIdentitySealed: sealUnverifiedIdentity(keyring, id, identity),
      },
    );
    if ('refused' in prepared) throw invalid(prepared.refused.message, prepared.refused.wording);
    const row = await db.transaction(async (tx) => {
      // An agent's request mails the subject a confirm-agent link: it counts against the subject's address.
      const capped = agent ? identity.email : codeTo;
      const recipient = verify && capped ? await assertFewOpenRequests(tx, keyring, capped) : undefined;
      const [stored] = await receive(
        tx,
        this.#services,
        {
          way: agent ? 'agent' : optOutOnly ? 'public_opt_out' : from,
          clientId: null,
          status: verify ? 'identity_unverified' : 'pending',
          message: agent
            ? "request received through the privacy center from an authorized agent; awaiting the agent's code"
            : verify
              ? 'request received through the privacy center; awaiting identity verification'
              : optOutOnly
                ? 'opt-out received through the privacy center; an opt-out needs no verification'
                : 'request received through the privacy center',
        },
        [{ ...prepared, ...(recipient && { recipientIndex: recipient }) }],
      );
      const inserted = stored as RequestRow;
      if (signals.gpc) await this.#recordGpcOptOut(tx, id, identity);
      if (agent) await recordAgent(tx, this.#services, id, agent);
      if (verify) await issueVerificationCode(tx, this.#services, inserted, codeTo as string);
      else {
        // Nothing proves the address either: its "received" mail counts against the same hourly cap.
        if (identity.email) await refuseAtMailCap(tx, keyring, identity.email);
        await admit(tx, this.#services, [inserted]);
      }
      return inserted;
    });
    const current = await requests.find(db, id);
    return { id, status: current?.status ?? row.status };
  }

  async #recordGpcOptOut(tx: Queryable, id: string, identity: Identity): Promise<void> {
    await recordOptOuts(tx, this.#services.keyring, typedIdentities(identity), DO_NOT_SELL_OR_SHARE, {
      source: 'gpc',
      privacyRequestId: id,
    });
    await logRepository.appendLogs(tx, [
      {
        id,
        entry: {
          kind: 'note',
          message: `Global Privacy Control signal (Sec-GPC: 1) recorded as an opt-out of ${SALE_AND_SHARING_USE}`,
        },
      },
    ]);
  }

  /**
   * What the page's form of each published action offers beyond the identity: `optOuts`, the policies
   * that only record consent (offered as "Do not sell or share"); `corrections`, those with an update rule
   * (their form asks what to correct).
   */
  async formKinds(settings: { actions: readonly { policy_key: string }[] }): Promise<FormKinds> {
    const { db } = this.#services;
    const ids = await policyRepository.idsByKey(
      db,
      settings.actions.map((action) => action.policy_key),
    );
    const rules = await policyRepository.rulesOf(db, [...ids.values()]);
    const kinds = { optOuts: new Set<string>(), corrections: new Set<string>() };
    for (const [key, id] of ids) {
      const own = rules.filter((rule) => rule.policy_id === id);
      if (isConsentOnly(own)) kinds.optOuts.add(key);
      if (hasUpdateRule(own)) kinds.corrections.add(key);
    }
    return kinds;
  }

  /** Where a request stands, for the page and its subject: no identity, no operator data. */
  async standing(id: string, language?: string): Promise<PublicRequestView> {
    const { db } = this.#services;
    const row = await requests.find(db, id);
    if (!row) throw notFound(`No privacy request with id ${id}.`);
    const written = await readPrivacyCenterSettings(db);
    const settings = language ? settingsIn(written, language) : written;
    const policyKey = (await loadPolicyEmbeds(db, [row.policy_id])).get(row.policy_id)?.key;
    return {
      id: row.id,
      status: row.status,
      stage: stageOf(row),
      action_title:
        (policyKey && publishedAction(settings, policyKey)?.title) ||
        translate(language ?? REFERENCE_LANGUAGE, 'page.default_action'),
      requested_at: row.requested_at.toISOString(),
      identity_verified: row.identity_verified_at !== null,
      awaiting_agent_confirmation: await awaitsAgentConfirmation(db, row),
    };
  }
}
