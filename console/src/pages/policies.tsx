// DSR policies: the list with their rules, the create form (PATCH /v1/dsr/policy), and the pre-approval
// webhooks, which belong to the service rather than to one policy. A created policy is confirmed in words.
import { type FormEvent, useState } from 'react';
import { Link } from 'wouter';
import { answer, answerOne } from '../api.ts';
import { Empty, ErrorNotice, Field, Loading, PageHeader, SuccessNotice } from '../components.tsx';
import { useAction, useResource } from '../hooks.ts';
import { Guarded } from '../scopes.tsx';
import { useSession } from '../session.tsx';
import type { Body } from '../schema.ts';
import { WebhookList } from './webhook-list.tsx';

/**
 * A policy's action (drp_action). The API takes any text, as Fides does; the console offers the two the
 * seeded policies use and Fides' DRP names, so that requests show one spelling per meaning.
 */
const POLICY_ACTIONS = [
  { value: '', label: 'none' },
  { value: 'access', label: 'access' },
  { value: 'erasure', label: 'erasure' },
  { value: 'deletion', label: 'deletion (DRP)' },
  { value: 'sale_opt_out', label: 'sale_opt_out (DRP)' },
  { value: 'sale_opt_in', label: 'sale_opt_in (DRP)' },
];

export function useJurisdictions() {
  const { api } = useSession();
  return useResource(() => answer(api.GET('/v1/jurisdiction')), 'jurisdictions');
}

/**
 * The jurisdiction select, fed by GET /v1/jurisdiction (the service's own table, never a list kept here).
 * A policy's jurisdiction applies to its requests whose location names no law of its own.
 */
export function JurisdictionSelect(props: { value: string; onChange: (value: string) => void }) {
  const jurisdictions = useJurisdictions();
  const period = (entry: { response_days?: number; response_months?: number }) =>
    entry.response_months !== undefined
      ? `${entry.response_months} month${entry.response_months === 1 ? '' : 's'}`
      : `${entry.response_days ?? '?'} days`;
  return (
    <div className="wide-field">
      <Field
        label="Jurisdiction"
        hint="Whose law's deadlines apply to a request whose location names none (GET /v1/jurisdiction). None: only the execution timeframe."
      >
        {(id, describedBy) => (
          <>
            <select
              id={id}
              aria-describedby={describedBy}
              value={props.value}
              disabled={!jurisdictions.data}
              onChange={(event) => props.onChange(event.target.value)}
            >
              <option value="">none</option>
              {(jurisdictions.data ?? []).map((entry) => (
                <option key={entry.code} value={entry.code}>
                  {entry.code}: {entry.name} ({period(entry)})
                </option>
              ))}
            </select>
            <ErrorNotice message={jurisdictions.error} />
          </>
        )}
      </Field>
    </div>
  );
}

export function useConnections() {
  const { api } = useSession();
  return useResource(
    () => answer(api.GET('/v1/connection', { params: { query: { size: 1000 } } })),
    'connections',
  );
}

export function PoliciesPage() {
  const { api } = useSession();
  const policies = useResource(
    () => answer(api.GET('/v1/dsr/policy', { params: { query: { size: 1000 } } })),
    'policies',
  );
  const connections = useConnections();
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [drpAction, setDrpAction] = useState('');
  const [timeframe, setTimeframe] = useState('45');
  const [jurisdiction, setJurisdiction] = useState('');
  const create = useAction();
  const [created, setCreated] = useState('');

  async function submit(event: FormEvent) {
    event.preventDefault();
    const item: Body<'/v1/dsr/policy', 'patch'>[number] = {
      name: name.trim(),
      key: key.trim(),
      execution_timeframe: Number(timeframe),
    };
    if (drpAction.trim()) item.drp_action = drpAction.trim();
    if (jurisdiction) item.jurisdiction = jurisdiction;
    setCreated('');
    if (await create.run(() => answerOne(api.PATCH('/v1/dsr/policy', { body: [item] })))) {
      setCreated(`Policy ${key.trim()} created. Open it to add its rules.`);
      setName('');
      setKey('');
      setDrpAction('');
      setJurisdiction('');
      await policies.reload();
    }
  }

  return (
    <>
      <PageHeader title="Policies" />
      <ErrorNotice message={policies.error} />
      {policies.loading && !policies.data ? (
        <Loading what="policies" />
      ) : policies.data && policies.data.items.length === 0 ? (
        <Empty>No policy yet. Create one below.</Empty>
      ) : policies.data ? (
        <table className="responsive">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Action</th>
              <th scope="col">Timeframe</th>
              <th scope="col">Jurisdiction</th>
              <th scope="col">Rules</th>
            </tr>
          </thead>
          <tbody>
            {policies.data.items.map((policy) => (
              <tr key={policy.key}>
                <td data-label="Name">
                  <Link href={`/policies/${encodeURIComponent(policy.key)}`}>{policy.name}</Link>
                </td>
                <td data-label="Key">
                  <code>{policy.key}</code>
                </td>
                <td data-label="Action">{policy.drp_action ?? '—'}</td>
                <td data-label="Timeframe">{policy.execution_timeframe} days</td>
                <td data-label="Jurisdiction">{policy.jurisdiction ?? 'none'}</td>
                <td data-label="Rules">
                  {policy.rules.length === 0
                    ? 'none'
                    : policy.rules
                        .map(
                          (rule) =>
                            `${rule.name} (${rule.action_type}${rule.masking_strategy ? `, ${rule.masking_strategy.strategy}` : ''})`,
                        )
                        .join('; ')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <form onSubmit={submit} className="card" aria-label="Create a policy">
        <h2>Create a policy</h2>
        <Guarded scope="policy:create_or_update" className="inline-form">
          <Field label="Name">
            {(id) => (
              <input id={id} required value={name} onChange={(event) => setName(event.target.value)} />
            )}
          </Field>
          <Field label="Key">
            {(id) => (
              <input
                id={id}
                required
                pattern="[A-Za-z0-9_][A-Za-z0-9_.\-]*"
                value={key}
                onChange={(event) => setKey(event.target.value)}
              />
            )}
          </Field>
          <Field label="Action (optional)" hint="what the policy is for, shown with its requests">
            {(id, describedBy) => (
              <select
                id={id}
                aria-describedby={describedBy}
                value={drpAction}
                onChange={(event) => setDrpAction(event.target.value)}
              >
                {POLICY_ACTIONS.map((action) => (
                  <option key={action.value} value={action.value}>
                    {action.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Execution timeframe (days)">
            {(id) => (
              <input
                id={id}
                type="number"
                min={1}
                max={3650}
                required
                value={timeframe}
                onChange={(event) => setTimeframe(event.target.value)}
              />
            )}
          </Field>
          <JurisdictionSelect value={jurisdiction} onChange={setJurisdiction} />
          <ErrorNotice message={create.error} />
          {created ? <SuccessNotice message={created} /> : null}
          <button type="submit" className="primary" disabled={create.pending}>
            Create policy
          </button>
        </Guarded>
      </form>
      {connections.data ? (
        <WebhookList
          title="Pre-approval webhooks"
          source={{ timing: 'pre_approval' }}
          policyWebhook={false}
          connections={connections.data.items}
          description="Called when a request is received, in this order. When all answer eligible the request is approved; any not-eligible answer leaves it pending for review."
        />
      ) : (
        <ErrorNotice message={connections.error} />
      )}
    </>
  );
}
