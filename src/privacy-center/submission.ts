// Requests from the public, through the privacy center: only published policies, only the identity fields
// the action asks for. Nothing the public gives is trusted: every value is stored as the request's
// unverified identity (never matched, sent to callbacks apart), and the identity the rule run matches
// starts empty. With LETHE_SUBJECT_IDENTITY_VERIFICATION_REQUIRED the request waits in
// identity_unverified for the code mailed to its email (at most 3 such requests per address; the code
// proves the email, src/verification/); otherwise it is received at once and its values stay unverified
// for good, so it matches nothing (an operator sees them marked and can act on them with a request of
// their own). The public view of a request tells where it stands and nothing else. Never logs an identity.
import { randomUUID } from 'node:crypto';
import { invalid, notFound } from '../errors.ts';
import { policyRepository } from '../policies/repository.ts';
import { admit, receive } from '../privacy-requests/intake.ts';
import {
  type Identity,
  identityProblem,
  sealIdentity,
  sealUnverifiedIdentity,
} from '../privacy-requests/identity.ts';
import { privacyRequestRepository as requests, type RequestRow } from '../privacy-requests/repository.ts';
import { loadPolicyEmbeds } from '../privacy-requests/view.ts';
import type { Services } from '../services.ts';
import { assertFewOpenRequests, reserveCodeMail } from '../verification/recipient.ts';
import { issueVerificationCode } from '../verification/service.ts';
import type { PublicSubmission } from './schemas.ts';
import { publishedAction, readPrivacyCenterSettings } from '../privacy-center-settings/settings.ts';

export type Stage = 'received' | 'verified' | 'in_progress' | 'done' | 'denied' | 'canceled';

export interface PublicRequestView {
  id: string;
  status: string;
  stage: Stage;
  action_title: string;
  requested_at: string;
  identity_verified: boolean;
}

const IDENTITY_FIELDS = ['email', 'phone_number'] as const;

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

  async submit(submission: PublicSubmission): Promise<{ id: string; status: string }> {
    const { db, config, keyring } = this.#services;
    const settings = await readPrivacyCenterSettings(db);
    const action = publishedAction(settings, submission.policy_key);
    if (!action) throw notFound(`Policy ${submission.policy_key} is not published in the privacy center.`);
    const identity: Identity = {};
    for (const field of IDENTITY_FIELDS) {
      const value = submission.identity[field]?.trim();
      const asked = action.identity_inputs[field];
      if (value && !asked) throw invalid(`identity.${field} is not asked for by this action.`);
      if (!value && asked === 'required') throw invalid(`identity.${field} is required by this action.`);
      if (value) identity[field] = value;
    }
    if (Object.keys(identity).length === 0)
      throw invalid('identity must give at least one of the fields this action asks for.');
    const problem = identityProblem(identity);
    if (problem) throw invalid(problem);
    if (config.identityVerificationRequired && !identity.email)
      throw invalid(
        'An identity without an email address cannot be verified; give an email address to receive the code.',
      );
    const policyId = (await policyRepository.idsByKey(db, [submission.policy_key])).get(
      submission.policy_key,
    );
    if (!policyId) throw notFound(`Policy ${submission.policy_key} is not published in the privacy center.`);

    const id = `pri_${randomUUID()}`;
    const verify = config.identityVerificationRequired;
    const row = await db.transaction(async (tx) => {
      const recipient =
        verify && identity.email ? await assertFewOpenRequests(tx, keyring, identity.email) : undefined;
      const [stored] = await receive(
        tx,
        this.#services,
        {
          clientId: null,
          status: verify ? 'identity_unverified' : 'pending',
          message: verify
            ? 'request received through the privacy center; awaiting identity verification'
            : 'request received through the privacy center',
        },
        [
          {
            id,
            externalId: null,
            policyId,
            source: 'privacy_center',
            location: null,
            customFields: [],
            identitySealed: sealIdentity(keyring, id, {}),
            unverifiedIdentitySealed: sealUnverifiedIdentity(keyring, id, identity),
            recipientIndex: recipient,
          },
        ],
      );
      const inserted = stored as RequestRow;
      if (verify) await issueVerificationCode(tx, this.#services, inserted, identity.email as string);
      else {
        // Nothing proves the address either: its "received" mail counts against the same hourly cap.
        if (identity.email) await reserveCodeMail(tx, keyring, identity.email);
        await admit(tx, this.#services, [inserted]);
      }
      return inserted;
    });
    const current = await requests.find(db, id);
    return { id, status: current?.status ?? row.status };
  }

  /** Where a request stands, for the page and its subject: no identity, no operator data. */
  async standing(id: string): Promise<PublicRequestView> {
    const { db } = this.#services;
    const row = await requests.find(db, id);
    if (!row) throw notFound(`No privacy request with id ${id}.`);
    const settings = await readPrivacyCenterSettings(db);
    const policyKey = (await loadPolicyEmbeds(db, [row.policy_id])).get(row.policy_id)?.key;
    return {
      id: row.id,
      status: row.status,
      stage: stageOf(row),
      action_title: (policyKey && publishedAction(settings, policyKey)?.title) || 'Privacy request',
      requested_at: row.requested_at.toISOString(),
      identity_verified: row.identity_verified_at !== null,
    };
  }
}
