// Datastores and the API keys that reach them: create and delete datastores, declare their identity
// attributes, switch maintenance, issue a key (shown once, with a copy button, then forgotten by the page)
// and revoke keys. Each datastore shows its entity count and links to its read-only browse
// (datastore-entities.tsx).
import { type FormEvent, useState } from 'react';
import { Link } from 'wouter';
import { answer } from '../api.ts';
import {
  ConfirmButton,
  CopyButton,
  Empty,
  ErrorNotice,
  Field,
  Loading,
  PageHeader,
  SuccessNotice,
} from '../components.tsx';
import { formatDateTime } from '../format.ts';
import { useAction, useResource } from '../hooks.ts';
import { useSession } from '../session.tsx';
import type { Body, Datastore, IssuedApiKey } from '../schema.ts';
import { IdentityAttributesSection } from './datastore-identities.tsx';
import { ReportSection } from './datastore-report.tsx';

/** A datastore's entity count, linking to its read-only browse. */
function EntityCount(props: { datastore: Datastore }) {
  const { entity_count: count, entity_count_capped: capped } = props.datastore;
  if (count === undefined) return <>—</>;
  return (
    <Link href={`/datastores/${encodeURIComponent(props.datastore.name)}/entities`}>
      {capped ? `more than ${count.toLocaleString('en')}` : count.toLocaleString('en')}
      <span className="visually-hidden"> entities of {props.datastore.name}</span>
    </Link>
  );
}

function DatastoreSection(props: { datastores: Datastore[]; reload: () => Promise<void> }) {
  const { api } = useSession();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useAction();
  const remove = useAction();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const body = description.trim()
      ? { name: name.trim(), description: description.trim() }
      : { name: name.trim() };
    if (await create.run(() => answer(api.POST('/v1/datastore', { body })))) {
      setName('');
      setDescription('');
      await props.reload();
    }
  }

  return (
    <section aria-labelledby="datastores-heading">
      <h2 id="datastores-heading">Datastores</h2>
      {props.datastores.length === 0 ? (
        <Empty>No datastore yet. Create one below; API keys are granted datastores by name.</Empty>
      ) : (
        <table className="responsive">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Description</th>
              <th scope="col">Entities</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.datastores.map((datastore) => (
              <tr key={datastore.name}>
                <td data-label="Name">
                  <code>{datastore.name}</code>
                </td>
                <td data-label="Description">{datastore.description ?? '—'}</td>
                <td data-label="Entities">
                  <EntityCount datastore={datastore} />
                </td>
                <td data-label="Created">{formatDateTime(datastore.created_at)}</td>
                <td data-label="Actions">
                  <ConfirmButton
                    label={`Delete ${datastore.name}`}
                    confirmLabel={`Delete ${datastore.name} and all its data`}
                    onConfirm={async () => {
                      if (
                        await remove.run(() =>
                          answer(
                            api.DELETE('/v1/datastore/{name}', {
                              params: { path: { name: datastore.name } },
                            }),
                          ),
                        )
                      )
                        await props.reload();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorNotice message={remove.error} />
      <form onSubmit={submit} className="card inline-form" aria-label="Create a datastore">
        <h3>Create a datastore</h3>
        <Field label="Name" hint="lower-case letters, digits, _ and -">
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              required
              value={name}
              onChange={(event) => setName(event.target.value)}
            />
          )}
        </Field>
        <Field label="Description (optional)">
          {(id) => (
            <input id={id} value={description} onChange={(event) => setDescription(event.target.value)} />
          )}
        </Field>
        <ErrorNotice message={create.error} />
        <button type="submit" className="primary" disabled={create.pending}>
          Create datastore
        </button>
      </form>
    </section>
  );
}

function IssueKeyForm(props: { datastores: Datastore[]; onIssued: (key: IssuedApiKey) => Promise<void> }) {
  const { api } = useSession();
  const [name, setName] = useState('');
  const [allDatastores, setAllDatastores] = useState(false);
  const [chosen, setChosen] = useState<string[]>([]);
  const [rateLimit, setRateLimit] = useState('');
  const issue = useAction();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const datastores = allDatastores ? ['*'] : chosen;
    if (datastores.length === 0) {
      issue.setError('Choose at least one datastore, or all datastores.');
      return;
    }
    const body: Body<'/v1/api-key', 'post'> = { name: name.trim(), datastores };
    if (rateLimit.trim()) body.rate_limit_per_minute = Number(rateLimit);
    let issued: IssuedApiKey | undefined;
    if (await issue.run(async () => (issued = await answer(api.POST('/v1/api-key', { body }))))) {
      setName('');
      setChosen([]);
      setAllDatastores(false);
      setRateLimit('');
      if (issued) await props.onIssued(issued);
    }
  }

  return (
    <form onSubmit={submit} className="card inline-form" aria-label="Issue an API key">
      <h3>Issue an API key</h3>
      <Field label="Key name">
        {(id) => <input id={id} required value={name} onChange={(event) => setName(event.target.value)} />}
      </Field>
      <fieldset>
        <legend>Datastores this key may use</legend>
        <label className="check">
          <input
            type="checkbox"
            checked={allDatastores}
            onChange={(event) => setAllDatastores(event.target.checked)}
          />
          All datastores (<code>*</code>, including later ones)
        </label>
        {props.datastores.map((datastore) => (
          <label className="check" key={datastore.name}>
            <input
              type="checkbox"
              disabled={allDatastores}
              checked={chosen.includes(datastore.name)}
              onChange={(event) =>
                setChosen((current) =>
                  event.target.checked
                    ? [...current, datastore.name]
                    : current.filter((name) => name !== datastore.name),
                )
              }
            />
            {datastore.name}
          </label>
        ))}
      </fieldset>
      <Field label="Rate limit per minute (optional)" hint="empty: the default, 60 requests a minute">
        {(id, describedBy) => (
          <input
            id={id}
            aria-describedby={describedBy}
            type="number"
            min={1}
            max={1000000}
            inputMode="numeric"
            value={rateLimit}
            onChange={(event) => setRateLimit(event.target.value)}
          />
        )}
      </Field>
      <ErrorNotice message={issue.error} />
      <button type="submit" className="primary" disabled={issue.pending}>
        Issue key
      </button>
    </form>
  );
}

/** A ready-to-paste call with the new key: create an entity in the key's first datastore. */
function exampleCall(issued: IssuedApiKey): string {
  const datastore =
    issued.datastores[0] === '*' || !issued.datastores[0] ? 'DATASTORE' : issued.datastores[0];
  return [
    `curl -s ${window.location.origin}/api/entity/create \\`,
    `  -H 'api-key: ${issued.key}' -H 'datastore: ${datastore}' -H 'content-type: application/json' \\`,
    `  -d '[{"name": "users", "attributes": [{"name": "email", "value": "jane@example.com"}]}]'`,
  ].join('\n');
}

function IssuedKeyPanel(props: { issued: IssuedApiKey; onDismiss: () => void }) {
  const example = exampleCall(props.issued);
  return (
    <div className="card issued-key" role="region" aria-label="New API key">
      <h3>Key “{props.issued.name}” issued</h3>
      <p>
        Copy it now: it is shown this once. Lethe keeps only a hash, and this page forgets it when you dismiss
        it or leave.
      </p>
      <p>
        <code className="secret-once" data-testid="issued-api-key">
          {props.issued.key}
        </code>
      </p>
      <CopyButton value={props.issued.key} label="Copy key" />
      <p>Try it against the subject data API:</p>
      <pre className="example">{example}</pre>
      <CopyButton value={example} label="Copy example" />{' '}
      <button type="button" onClick={props.onDismiss}>
        Done, hide it
      </button>
    </div>
  );
}

function KeySection(props: { datastores: Datastore[] }) {
  const { api } = useSession();
  const keys = useResource(() => answer(api.GET('/v1/api-key')), 'keys');
  const [issued, setIssued] = useState<IssuedApiKey | null>(null);
  const revoke = useAction();
  const [revoked, setRevoked] = useState('');

  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <p className="hint">
        A key's datastores and rate limit are fixed when it is issued; to change them, issue a new key and
        revoke the old one.
      </p>
      {issued ? <IssuedKeyPanel issued={issued} onDismiss={() => setIssued(null)} /> : null}
      {revoked ? <SuccessNotice message={revoked} /> : null}
      <ErrorNotice message={keys.error || revoke.error} />
      {keys.loading && !keys.data ? (
        <Loading what="API keys" />
      ) : keys.data && keys.data.length === 0 ? (
        <Empty>No API key yet. Issue one below to reach the subject data API at /api.</Empty>
      ) : (
        <table className="responsive">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Id</th>
              <th scope="col">Datastores</th>
              <th scope="col">Rate limit</th>
              <th scope="col">Issued</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(keys.data ?? []).map((key) => (
              <tr key={key.id}>
                <td data-label="Name">{key.name}</td>
                <td data-label="Id">
                  <code>{key.id}</code>
                </td>
                <td data-label="Datastores">{key.datastores.join(', ')}</td>
                <td data-label="Rate limit">{key.rate_limit_per_minute ?? 60} / min</td>
                <td data-label="Issued">{formatDateTime(key.created_at)}</td>
                <td data-label="Actions">
                  <ConfirmButton
                    label={`Revoke ${key.name}`}
                    confirmLabel={`Revoke ${key.name} now`}
                    onConfirm={async () => {
                      setRevoked('');
                      if (
                        await revoke.run(() =>
                          answer(api.DELETE('/v1/api-key/{id}', { params: { path: { id: key.id } } })),
                        )
                      ) {
                        setRevoked(`Key “${key.name}” revoked: it is refused from now on.`);
                        await keys.reload();
                      }
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <IssueKeyForm
        datastores={props.datastores}
        onIssued={async (key) => {
          setRevoked('');
          setIssued(key);
          await keys.reload();
        }}
      />
    </section>
  );
}

function MaintenanceSection() {
  const { api } = useSession();
  const maintenance = useResource(() => answer(api.GET('/v1/maintenance')), 'maintenance');
  const toggle = useAction();
  const enabled = maintenance.data?.enabled ?? false;
  return (
    <section aria-labelledby="maintenance-heading">
      <h2 id="maintenance-heading">Maintenance</h2>
      <ErrorNotice message={maintenance.error || toggle.error} />
      {maintenance.data ? (
        <p>
          The subject data API is{' '}
          <strong>{enabled ? 'in maintenance (every /api call answers 503)' : 'open'}</strong>.{' '}
          <button
            type="button"
            aria-pressed={enabled}
            disabled={toggle.pending}
            onClick={async () => {
              if (await toggle.run(() => answer(api.PUT('/v1/maintenance', { body: { enabled: !enabled } }))))
                await maintenance.reload();
            }}
          >
            {enabled ? 'End maintenance' : 'Start maintenance'}
          </button>
        </p>
      ) : maintenance.loading ? (
        <Loading what="maintenance state" />
      ) : null}
    </section>
  );
}

export function DatastoresPage() {
  const { api } = useSession();
  const datastores = useResource(() => answer(api.GET('/v1/datastore')), 'datastores');
  return (
    <>
      <PageHeader title="Datastores and API keys" />
      <ErrorNotice message={datastores.error} />
      {datastores.loading && !datastores.data ? (
        <Loading what="datastores" />
      ) : (
        <>
          <DatastoreSection datastores={datastores.data ?? []} reload={datastores.reload} />
          <IdentityAttributesSection datastores={datastores.data ?? []} />
          <ReportSection datastores={datastores.data ?? []} reload={datastores.reload} />
          <KeySection datastores={datastores.data ?? []} />
          <MaintenanceSection />
        </>
      )}
    </>
  );
}
