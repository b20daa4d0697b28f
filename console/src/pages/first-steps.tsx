// The first screen of a sign-in that configures Lethe (issue 37): what to do first, as a checklist whose
// every item is checked from the service's real state, read afresh on each visit: a datastore that holds
// data, a published privacy center, a jurisdiction on every published policy, an operator account. An
// item the sign-in cannot read says which scope it needs instead of guessing.
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { answer } from '../api.ts';
import { PageHeader } from '../components.tsx';
import { useResource } from '../hooks.ts';
import { holds, useSession } from '../session.tsx';

type State = { done: boolean; detail: string } | { unreadable: string } | undefined;

function Item(props: { title: string; state: State; href: string; action: string; children: ReactNode }) {
  const { state } = props;
  const done = state !== undefined && 'done' in state && state.done;
  const status =
    state === undefined
      ? 'checking…'
      : 'unreadable' in state
        ? `cannot be checked by this sign-in (needs ${state.unreadable})`
        : state.done
          ? 'done'
          : 'to do';
  return (
    <li className={done ? 'step done' : 'step'} data-step={props.title}>
      <h2>
        <span aria-hidden="true">{done ? '☑' : '☐'}</span> {props.title}{' '}
        <span className="hint" data-testid="step-status">
          ({status})
        </span>
      </h2>
      <p>{props.children}</p>
      {state && 'detail' in state ? <p className="hint">{state.detail}</p> : null}
      {done ? null : <Link href={props.href}>{props.action}</Link>}
    </li>
  );
}

export function FirstStepsPage() {
  const { api, info } = useSession();
  const can = (scope: string) => holds(info.scopes, scope);
  const datastores = useResource(
    () => (can('datastore:read') ? answer(api.GET('/v1/datastore')) : Promise.resolve(undefined)),
    'first-steps/datastores',
  );
  const center = useResource(
    () => (can('privacy-center:read') ? answer(api.GET('/v1/privacy-center')) : Promise.resolve(undefined)),
    'first-steps/privacy-center',
  );
  const policies = useResource(
    () =>
      can('policy:read')
        ? answer(api.GET('/v1/dsr/policy', { params: { query: { size: 1000 } } }))
        : Promise.resolve(undefined),
    'first-steps/policies',
  );
  const users = useResource(
    () => (can('user:read') ? answer(api.GET('/v1/user')) : Promise.resolve(undefined)),
    'first-steps/users',
  );

  const datastoreState: State = !can('datastore:read')
    ? { unreadable: 'datastore:read' }
    : datastores.data === undefined
      ? undefined
      : {
          done: datastores.data.some((store) => (store.entity_count ?? 0) > 0),
          detail:
            datastores.data.length === 0
              ? 'No datastore yet.'
              : `${datastores.data.length} datastore(s); ${datastores.data.filter((store) => (store.entity_count ?? 0) > 0).length} with data.`,
        };
  const published = center.data?.actions ?? [];
  const centerState: State = !can('privacy-center:read')
    ? { unreadable: 'privacy-center:read' }
    : center.data === undefined
      ? undefined
      : {
          done: published.length > 0,
          detail: `${published.length} action(s) offered to the public.`,
        };
  const publishedPolicies = (policies.data?.items ?? []).filter((policy) =>
    published.some((action) => action.policy_key === policy.key),
  );
  const withoutJurisdiction = publishedPolicies.filter((policy) => !policy.jurisdiction);
  const jurisdictionState: State =
    !can('policy:read') || !can('privacy-center:read')
      ? { unreadable: 'policy:read and privacy-center:read' }
      : policies.data === undefined || center.data === undefined
        ? undefined
        : {
            done: publishedPolicies.length > 0 && withoutJurisdiction.length === 0,
            detail:
              publishedPolicies.length === 0
                ? 'No policy is published yet.'
                : withoutJurisdiction.length === 0
                  ? 'Every published policy names its jurisdiction.'
                  : `Without a jurisdiction: ${withoutJurisdiction.map((policy) => policy.key).join(', ')}.`,
          };
  const usersState: State = !can('user:read')
    ? { unreadable: 'user:read' }
    : users.data === undefined
      ? undefined
      : {
          done: users.data.length > 0,
          detail: `${users.data.length} operator account(s).`,
        };

  return (
    <>
      <PageHeader title="First steps" />
      <p className="hint">
        What a new installation needs before it handles requests as the law asks. Each item is checked from
        the service as it is now.
      </p>
      <ol className="checklist" aria-label="First steps">
        <Item
          title="Connect a datastore"
          state={datastoreState}
          href="/datastores"
          action="Create a datastore and an API key"
        >
          Create a datastore and give the system that holds personal data an API key to write to it; done when
          data has arrived.
        </Item>
        <Item
          title="Publish the privacy center"
          state={centerState}
          href="/privacy-center"
          action="Choose what the public may request"
        >
          Choose which requests the public may make on the privacy center page.
        </Item>
        <Item
          title="Set jurisdictions"
          state={jurisdictionState}
          href="/policies"
          action="Set each policy's jurisdiction"
        >
          Each published policy names the law whose deadlines, extensions and appeals apply.
        </Item>
        <Item title="Add operators" state={usersState} href="/users" action="Create an operator account">
          Give each person who handles requests their own account, so that approvals and the audit log name
          them.
        </Item>
      </ol>
    </>
  );
}
