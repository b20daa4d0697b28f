// The parts of a request that depend on how it came in (issue 28): who submitted it and how they were
// authorised (an authorized agent: the subject's confirmation or an operator's power of attorney, which a
// reviewer accepts here with a reason once the agent proved their email), the consent preferences it
// carries, the before/after of its corrections for the reviewer, and the recipients a completed erasure
// told.
import { useState } from 'react';
import { answer } from '../api.ts';
import { ErrorNotice, Loading } from '../components.tsx';
import { formatDateTime } from '../format.ts';
import { useResource } from '../hooks.ts';
import { useCan } from '../scopes.tsx';
import { useSession } from '../session.tsx';
import type { PrivacyRequest } from '../schema.ts';
import { ReasonDialog } from './request-clock.tsx';

const AUTHORIZATION_LABELS: Record<string, string> = {
  subject_confirmed: 'the subject confirmed the agent through the mailed link',
  power_of_attorney: 'an operator accepted a power of attorney',
};

/** The bounds of POST /v1/privacy-request/{id}/agent/accept's reason (src/agents/routes.ts). */
const ACCEPT_REASON_MAX_LENGTH = 1000;

function AgentFacts(props: { request: PrivacyRequest; onChanged: () => Promise<void> }) {
  const { api } = useSession();
  const canReview = useCan('privacy-request:review');
  const [accepting, setAccepting] = useState(false);
  // The identities the document establishes beside the subject's address: none unless the reviewer ticks them.
  const [established, setEstablished] = useState<string[]>([]);
  const provable = Object.keys(props.request.unverified_identity ?? {}).filter((key) => key !== 'email');
  const byId = { params: { path: { id: props.request.id } } };
  const agent = useResource(
    () => answer(api.GET('/v1/privacy-request/{id}/agent', byId)),
    `${props.request.id}/agent`,
  );
  if (agent.error) return <ErrorNotice message={agent.error} />;
  if (!agent.data) return <Loading what="the agent" />;
  const data = agent.data;
  // The API accepts only then; a reviewer who could not send it is not offered the button at all.
  const acceptable =
    canReview &&
    props.request.status === 'identity_unverified' &&
    data.authorization === null &&
    data.email_verified_at !== null;
  return (
    <>
      <dl className="facts" aria-label="Authorized agent">
        <dt>Submitted by</dt>
        <dd>
          authorized agent {data.name} ({data.email}
          {data.email_verified_at ? ', email verified' : ', email not verified yet'})
        </dd>
        <dt>Authorised</dt>
        <dd>
          {data.authorization
            ? `${AUTHORIZATION_LABELS[data.authorization] ?? data.authorization}${data.authorized_at ? `, ${formatDateTime(data.authorized_at)}` : ''}${data.authorized_by && data.authorization === 'power_of_attorney' ? ` by ${data.authorized_by}` : ''}${data.identities.length > 0 ? `, establishing ${data.identities.join(', ')}` : ''}${data.reason ? `: ${data.reason}` : ''}`
            : data.email_verified_at
              ? 'not yet: waiting for the subject to confirm the agent'
              : 'not yet: waiting for the agent to verify their email'}
        </dd>
      </dl>
      {acceptable ? (
        <span className="request-actions">
          <button type="button" onClick={() => setAccepting(true)}>
            Accept power of attorney…
          </button>
        </span>
      ) : null}
      {accepting ? (
        <ReasonDialog
          heading={`Accept the power of attorney of ${data.name}`}
          explanation={`In place of the subject's confirmation: the agent is recorded as authorised by you, and request ${props.request.id} goes on with the subject's email proved. Tick only the identities the document itself establishes: the others stay unverified and match nothing. Say what you saw, in 1 to ${ACCEPT_REASON_MAX_LENGTH} characters, not blank.`}
          reasonHint="kept in the request's log and shown as the agent's authorisation"
          maxLength={ACCEPT_REASON_MAX_LENGTH}
          submitLabel="Accept"
          onSubmit={(reason) =>
            answer(
              api.POST('/v1/privacy-request/{id}/agent/accept', {
                ...byId,
                body: { reason, identities: established },
              }),
            )
          }
          onClose={() => {
            setAccepting(false);
            setEstablished([]);
          }}
          onDone={async () => {
            await Promise.all([agent.reload(), props.onChanged()]);
          }}
        >
          {provable.length > 0 ? (
            <fieldset>
              <legend>The document establishes (unproven until ticked)</legend>
              {provable.map((key) => (
                <label key={key}>
                  <input
                    type="checkbox"
                    checked={established.includes(key)}
                    onChange={(event) =>
                      setEstablished((current) =>
                        event.target.checked ? [...current, key] : current.filter((name) => name !== key),
                      )
                    }
                  />{' '}
                  {key}
                </label>
              ))}
            </fieldset>
          ) : null}
        </ReasonDialog>
      ) : null}
    </>
  );
}

function CorrectionsReview(props: { id: string }) {
  const { api } = useSession();
  const preview = useResource(
    () => answer(api.GET('/v1/privacy-request/{id}/corrections', { params: { path: { id: props.id } } })),
    `${props.id}/corrections`,
  );
  if (preview.error) return <ErrorNotice message={preview.error} />;
  if (!preview.data) return <Loading what="the corrections" />;
  return (
    <section aria-labelledby="corrections-heading">
      <h2 id="corrections-heading">Corrections</h2>
      {preview.data.changes.length === 0 ? (
        <p className="hint">
          No matched entity holds these attributes now; approving writes nothing. Asked for:{' '}
          {preview.data.corrections.map((correction) => correction.attribute).join(', ')}
        </p>
      ) : (
        <table>
          <caption>What approving writes, per matched entity</caption>
          <thead>
            <tr>
              <th scope="col">Datastore</th>
              <th scope="col">Entity</th>
              <th scope="col">Attribute</th>
              <th scope="col">Before</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {preview.data.changes.map((change) => (
              <tr key={`${change.datastore}/${change.entity_id}/${change.attribute}`}>
                <td>{change.datastore}</td>
                <td>
                  <code>{change.entity_id}</code>
                </td>
                <td>{change.attribute}</td>
                <td>{change.before ?? <em>empty</em>}</td>
                <td>{change.after}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function RequestWaysIn(props: { request: PrivacyRequest; onChanged: () => Promise<void> }) {
  const request = props.request;
  const corrects = request.policy?.rules?.some((rule) => rule.action_type === 'update') ?? false;
  return (
    <>
      {request.submitted_by === 'authorized_agent' ? (
        <AgentFacts request={request} onChanged={props.onChanged} />
      ) : null}
      {request.consent_preferences.length > 0 ? (
        <dl className="facts" aria-label="Consent">
          <dt>Consent preferences</dt>
          <dd>
            {request.consent_preferences
              .map((preference) => `${preference.data_use}: ${preference.opt_in ? 'opt in' : 'opt out'}`)
              .join(', ')}
          </dd>
        </dl>
      ) : null}
      {request.recipients_notified ? (
        <dl className="facts" aria-label="Recipients notified">
          <dt>Recipients told of the erasure</dt>
          <dd>{request.recipients_notified.length > 0 ? request.recipients_notified.join(', ') : 'none'}</dd>
        </dl>
      ) : null}
      {corrects ? <CorrectionsReview id={request.id} /> : null}
    </>
  );
}
