// Submitting a privacy request on a data subject's behalf (POST /v1/privacy-request), as an operator does
// for a request that arrived by mail or phone. The identity typed here is sent once and cleared.
import { type FormEvent, useState } from 'react';
import { Link } from 'wouter';
import { answer, answerOne } from '../api.ts';
import { ErrorNotice, Field } from '../components.tsx';
import { useAction, useResource } from '../hooks.ts';
import { Guarded } from '../scopes.tsx';
import { useSession } from '../session.tsx';
import type { Body, PrivacyRequest } from '../schema.ts';

type NewRequest = Body<'/v1/privacy-request', 'post'>[number];

export function NewRequestForm(props: { onCreated: () => Promise<void> }) {
  const { api } = useSession();
  const policies = useResource(
    () => answer(api.GET('/v1/dsr/policy', { params: { query: { size: 1000 } } })),
    'policies',
  );
  const [policyKey, setPolicyKey] = useState('');
  const [email, setEmail] = useState('');
  const [phone, setPhone] = useState('');
  const [externalId, setExternalId] = useState('');
  const [created, setCreated] = useState<PrivacyRequest | null>(null);
  const submit = useAction();
  const firstPolicy = policies.data?.items[0]?.key ?? '';

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setCreated(null);
    const identity: { email?: string; phone_number?: string } = {};
    if (email.trim()) identity.email = email.trim();
    if (phone.trim()) identity.phone_number = phone.trim();
    if (Object.keys(identity).length === 0) {
      submit.setError('Give an email address or a phone number.');
      return;
    }
    // The document types custom identities as {label, value}, which TypeScript applies to email too.
    const item: NewRequest = {
      identity: identity as NewRequest['identity'],
      policy_key: policyKey || firstPolicy,
    };
    if (externalId.trim()) item.external_id = externalId.trim();
    let request: PrivacyRequest | undefined;
    const ok = await submit.run(async () => {
      request = await answerOne(api.POST('/v1/privacy-request', { body: [item] }));
    });
    if (ok && request) {
      setCreated(request);
      setEmail('');
      setPhone('');
      setExternalId('');
      await props.onCreated();
    }
  }

  return (
    <details className="card">
      <summary>Submit a request on a data subject's behalf</summary>
      <form onSubmit={onSubmit} aria-label="Submit a privacy request">
        <Guarded scope="privacy-request:create" className="inline-form">
          <Field label="Policy">
            {(id) => (
              <select
                id={id}
                required
                value={policyKey || firstPolicy}
                onChange={(event) => setPolicyKey(event.target.value)}
              >
                {(policies.data?.items ?? []).map((policy) => (
                  <option key={policy.key} value={policy.key}>
                    {policy.name} ({policy.key})
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Email">
            {(id) => (
              <input
                id={id}
                type="email"
                autoComplete="off"
                value={email}
                onChange={(event) => setEmail(event.target.value)}
              />
            )}
          </Field>
          <Field label="Phone number" hint="E.164, for example +4915112345678">
            {(id, describedBy) => (
              <input
                id={id}
                aria-describedby={describedBy}
                type="tel"
                autoComplete="off"
                value={phone}
                onChange={(event) => setPhone(event.target.value)}
              />
            )}
          </Field>
          <Field label="External id (optional)">
            {(id) => (
              <input id={id} value={externalId} onChange={(event) => setExternalId(event.target.value)} />
            )}
          </Field>
          <ErrorNotice message={submit.error || policies.error} />
          {created ? (
            <p className="notice notice-success" role="status">
              Request{' '}
              <Link href={`/requests/${encodeURIComponent(created.id)}`}>
                {created.external_id || created.id}
              </Link>{' '}
              received: {created.status.replace(/_/g, ' ')}.
            </p>
          ) : null}
          <button type="submit" className="primary" disabled={submit.pending || !firstPolicy}>
            Submit request
          </button>
        </Guarded>
      </form>
    </details>
  );
}
