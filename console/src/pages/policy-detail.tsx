// One DSR policy: its rules (add or redefine through PATCH /v1/dsr/policy/{key}/rule) and its ordered
// pre- and post-execution webhooks. The action types offered, and what a rule of each takes, are the
// service's own registry (GET /v1/action-type), as are the masking strategies (GET /v1/masking/strategy):
// never a list kept here.
import { type FormEvent, useState } from 'react';
import { Link } from 'wouter';
import { answer, answerOne } from '../api.ts';
import { Empty, ErrorNotice, Field, Loading, PageHeader, SuccessNotice } from '../components.tsx';
import { useAction, useResource } from '../hooks.ts';
import { Guarded } from '../scopes.tsx';
import { useSession } from '../session.tsx';
import type { Body, Rule } from '../schema.ts';

type RuleItem = Body<'/v1/dsr/policy/{policy_key}/rule', 'patch'>[number];
type StrategyName = NonNullable<RuleItem['masking_strategy']>['strategy'];
import { JurisdictionSelect, useConnections } from './policies.tsx';
import { WebhookList } from './webhook-list.tsx';

/**
 * Adds or redefines a rule. There is no default action: the form starts on the policy's own action (its
 * `drp_action`) when that is a registered action type, and otherwise on no choice, which the operator must
 * make before saving (an access policy must never become an erasure by one click).
 */
function RuleForm(props: { policyKey: string; purpose: string | null; onSaved: () => Promise<void> }) {
  const { api } = useSession();
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [chosenAction, setActionType] = useState<RuleItem['action_type'] | ''>('');
  const [strategy, setStrategy] = useState<StrategyName>('nullify');
  const [rewriteValue, setRewriteValue] = useState('');
  // Untouched: every target (`*`) for access and erasure; an update rule starts empty, so that what a
  // correction may write is always the operator's choice (docs/console.md).
  const [typedTargets, setTargets] = useState<string | null>(null);
  const save = useAction();
  const [saved, setSaved] = useState('');
  const strategies = useResource(() => answer(api.GET('/v1/masking/strategy')), 'strategies');
  const actionTypes = useResource(() => answer(api.GET('/v1/action-type')), 'action types');
  const purpose = actionTypes.data?.find((entry) => entry.name === props.purpose)?.name as
    RuleItem['action_type'] | undefined;
  const actionType: RuleItem['action_type'] | '' = chosenAction || purpose || '';
  const chosen = strategies.data?.find((entry) => entry.name === strategy);
  const takes = actionTypes.data?.find((entry) => entry.name === actionType);
  const masks = takes?.rule.masking_strategy ?? false;
  const targeted = takes?.rule.targets ?? false;
  const targets = typedTargets ?? (actionType === 'update' ? '' : '*');

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved('');
    if (!actionType) {
      save.setError('Choose the action type of this rule.');
      return;
    }
    const item: RuleItem = { name: name.trim(), key: key.trim(), action_type: actionType };
    if (targeted) {
      if (!targets.trim()) {
        save.setError(`Give the targets of this ${actionType} rule: *, table.* or table.attribute.`);
        return;
      }
      item.targets = targets
        .split(/[\s,]+/)
        .map((target) => target.trim())
        .filter(Boolean);
    }
    if (masks) {
      item.masking_strategy = {
        strategy,
        configuration: strategy === 'string_rewrite' ? { rewrite_value: rewriteValue } : {},
      };
    }
    if (
      await save.run(() =>
        answerOne(
          api.PATCH('/v1/dsr/policy/{policy_key}/rule', {
            params: { path: { policy_key: props.policyKey } },
            body: [item],
          }),
        ),
      )
    ) {
      setSaved(`Rule ${key.trim()} saved.`);
      setName('');
      setKey('');
      setTargets(null);
      await props.onSaved();
    }
  }

  return (
    <form onSubmit={submit} className="card" aria-label="Add or redefine a rule">
      <h3>Add or redefine a rule</h3>
      <Guarded scope="policy:create_or_update" className="inline-form">
        <p className="hint">A rule with an existing key is replaced by this definition.</p>
        <Field label="Rule name">
          {(id) => <input id={id} required value={name} onChange={(event) => setName(event.target.value)} />}
        </Field>
        <Field label="Rule key">
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
        <Field
          label="Action type"
          hint={
            takes
              ? `${takes.description}${purpose && actionType !== purpose ? ` This policy's action is ${purpose}.` : ''}`
              : 'This policy names no action: choose what the rule does.'
          }
        >
          {(id, describedBy) => (
            <select
              id={id}
              aria-describedby={describedBy}
              required
              value={actionType}
              disabled={!actionTypes.data}
              onChange={(event) => setActionType(event.target.value as RuleItem['action_type'])}
            >
              {actionType ? null : (
                <option value="" disabled>
                  Choose an action
                </option>
              )}
              {(actionTypes.data ?? []).map((entry) => (
                <option key={entry.name} value={entry.name}>
                  {entry.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          label="Masking strategy"
          hint={
            masks
              ? chosen?.description
              : actionType
                ? `${actionType} rules mask nothing.`
                : 'Choose an action type first.'
          }
        >
          {(id, describedBy) => (
            <select
              id={id}
              aria-describedby={describedBy}
              value={masks ? strategy : ''}
              disabled={!masks || !strategies.data}
              onChange={(event) => setStrategy(event.target.value as StrategyName)}
            >
              {masks ? null : <option value="">none{actionType ? ` (${actionType})` : ''}</option>}
              {(strategies.data ?? []).map((entry) => (
                <option key={entry.name} value={entry.name}>
                  {entry.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        {masks && strategy === 'string_rewrite' ? (
          <Field label="Rewrite value">
            {(id) => (
              <input
                id={id}
                required
                value={rewriteValue}
                onChange={(event) => setRewriteValue(event.target.value)}
              />
            )}
          </Field>
        ) : null}
        <Field
          label="Targets"
          hint={
            targeted
              ? '*, table.* or table.attribute; separated by commas or spaces'
              : actionType
                ? `${actionType} rules take no targets.`
                : 'Choose an action type first.'
          }
        >
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              required={targeted}
              disabled={!targeted}
              value={targeted ? targets : ''}
              onChange={(event) => setTargets(event.target.value)}
            />
          )}
        </Field>
        <ErrorNotice message={save.error || strategies.error || actionTypes.error} />
        {saved ? <SuccessNotice message={saved} /> : null}
        <button type="submit" className="primary" disabled={save.pending}>
          Save rule
        </button>
      </Guarded>
    </form>
  );
}

type Policy = Body<'/v1/dsr/policy', 'patch'>[number] & { jurisdiction?: string | null };

/** Sets the policy's jurisdiction (PATCH /v1/dsr/policy with its other fields as they are). */
function JurisdictionForm(props: { policy: Policy; onSaved: () => Promise<void> }) {
  const { api } = useSession();
  const [chosen, setChosen] = useState<string | null>(null);
  const value = chosen ?? props.policy.jurisdiction ?? '';
  const save = useAction();
  const [saved, setSaved] = useState('');

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved('');
    const item: Body<'/v1/dsr/policy', 'patch'>[number] = {
      key: props.policy.key,
      name: props.policy.name,
      jurisdiction: value || null,
    };
    if (props.policy.drp_action) item.drp_action = props.policy.drp_action;
    if (props.policy.execution_timeframe) item.execution_timeframe = props.policy.execution_timeframe;
    if (await save.run(() => answerOne(api.PATCH('/v1/dsr/policy', { body: [item] })))) {
      setSaved(value ? `Jurisdiction set to ${value}.` : 'The policy names no jurisdiction now.');
      setChosen(null);
      await props.onSaved();
    }
  }

  return (
    <form onSubmit={submit} className="card" aria-label="Set the jurisdiction">
      <h3>Jurisdiction</h3>
      <Guarded scope="policy:create_or_update" className="inline-form">
        <JurisdictionSelect value={value} onChange={setChosen} />
        <ErrorNotice message={save.error} />
        {saved ? <SuccessNotice message={saved} /> : null}
        <button type="submit" className="primary" disabled={save.pending}>
          Save jurisdiction
        </button>
      </Guarded>
    </form>
  );
}

function RulesTable(props: { rules: Rule[] }) {
  if (props.rules.length === 0) return <Empty>No rule yet: requests under this policy touch no data.</Empty>;
  return (
    <table className="responsive">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Key</th>
          <th scope="col">Action</th>
          <th scope="col">Masking</th>
          <th scope="col">Targets</th>
          <th scope="col">Storage</th>
        </tr>
      </thead>
      <tbody>
        {props.rules.map((rule) => (
          <tr key={rule.key}>
            <td data-label="Name">{rule.name}</td>
            <td data-label="Key">
              <code>{rule.key}</code>
            </td>
            <td data-label="Action">{rule.action_type}</td>
            <td data-label="Masking">{rule.masking_strategy?.strategy ?? '—'}</td>
            <td data-label="Targets">{rule.targets.join(', ')}</td>
            <td data-label="Storage">{rule.storage_destination_key ?? '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function PolicyDetailPage(props: { policyKey: string }) {
  const { api } = useSession();
  const policy = useResource(
    () =>
      answer(api.GET('/v1/dsr/policy/{policy_key}', { params: { path: { policy_key: props.policyKey } } })),
    props.policyKey,
  );
  const connections = useConnections();

  return (
    <>
      <PageHeader title={policy.data ? `Policy ${policy.data.name}` : `Policy ${props.policyKey}`}>
        <Link href="/policies">All policies</Link>
      </PageHeader>
      <ErrorNotice message={policy.error || connections.error} />
      {policy.loading && !policy.data ? <Loading what="the policy" /> : null}
      {policy.data ? (
        <>
          <dl className="facts">
            <dt>Key</dt>
            <dd>
              <code>{policy.data.key}</code>
            </dd>
            <dt>Action</dt>
            <dd>{policy.data.drp_action ?? '—'}</dd>
            <dt>Execution timeframe</dt>
            <dd>{policy.data.execution_timeframe} days</dd>
            <dt>Jurisdiction</dt>
            <dd>{policy.data.jurisdiction ?? 'none'}</dd>
          </dl>
          <JurisdictionForm policy={policy.data} onSaved={policy.reload} />
          <section aria-labelledby="rules-heading">
            <h2 id="rules-heading">Rules</h2>
            <RulesTable rules={policy.data.rules} />
            <RuleForm policyKey={props.policyKey} purpose={policy.data.drp_action} onSaved={policy.reload} />
          </section>
          {connections.data ? (
            <>
              <WebhookList
                title="Pre-execution webhooks"
                source={{ policyKey: props.policyKey, timing: 'pre_execution' }}
                policyWebhook
                connections={connections.data.items}
                description="Called in this order after approval, before the rules run. A two-way webhook may halt the request until it is resumed."
              />
              <WebhookList
                title="Post-execution webhooks"
                source={{ policyKey: props.policyKey, timing: 'post_execution' }}
                policyWebhook
                connections={connections.data.items}
                description="Called in this order after the rules ran, before the request completes."
              />
            </>
          ) : null}
        </>
      ) : null}
    </>
  );
}
