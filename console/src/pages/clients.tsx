// Management clients, for integrations: the list, the create form (a name and a subset of the scopes
// the signed-in operator holds) and deletion, which revokes the client's tokens at once. The secret of a
// new client is shown once, here, and never again (only its digest is stored). Needs client:* to change
// anything and client:read to list. The scope checkboxes come in the service's order with the service's
// descriptions (GET /v1/oauth/scopes), limited to the scopes the signed-in operator holds.
import { type FormEvent, useState } from 'react';
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
import { holds, useSession } from '../session.tsx';
import { answer } from '../api.ts';
import type { Body, Ok, ScopeDescription } from '../schema.ts';

type CreatedClient = Ok<'/v1/oauth/client', 'post'>;
type Scope = Body<'/v1/oauth/client', 'post'>['scopes'][number];

export function ClientsPage() {
  const { api, info } = useSession();
  const canRead = holds(info.scopes, 'client:read');
  const canManage = holds(info.scopes, 'client:*');
  const clients = useResource(
    () => (canRead ? answer(api.GET('/v1/oauth/client')) : Promise.resolve([])),
    'clients',
  );
  const [created, setCreated] = useState<CreatedClient | null>(null);
  const remove = useAction();
  const [done, setDone] = useState('');

  return (
    <>
      <PageHeader title="Clients" />
      <p className="hint">
        A management client signs in with an id and a secret (OAuth client credentials) for scripts and
        integrations. People should have their own user instead.
      </p>
      {!canManage ? (
        <p className="notice" role="status">
          {canRead
            ? 'You can see the clients but not change them: that needs the owner role.'
            : 'Your account cannot see clients: that needs the owner role.'}
        </p>
      ) : null}
      <ErrorNotice message={clients.error || remove.error} />
      {done ? <SuccessNotice message={done} /> : null}
      {created ? <CreatedClientPanel client={created} onDismiss={() => setCreated(null)} /> : null}
      {!canRead ? null : clients.loading && !clients.data ? (
        <Loading what="clients" />
      ) : clients.data && clients.data.length === 0 ? (
        <Empty>No management client besides the root client.</Empty>
      ) : clients.data ? (
        <table className="responsive">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Client id</th>
              <th scope="col">Scopes</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {clients.data.map((client) => (
              <tr key={client.client_id}>
                <td data-label="Name">{client.name || '—'}</td>
                <td data-label="Client id">
                  <code>{client.client_id}</code>
                </td>
                <td data-label="Scopes">{client.scopes.join(', ')}</td>
                <td data-label="Created">{formatDateTime(client.created_at)}</td>
                <td data-label="Actions">
                  <ConfirmButton
                    label={`Delete ${client.name || client.client_id}`}
                    confirmLabel="Yes, delete and revoke"
                    disabled={!canManage || remove.pending}
                    onConfirm={async () => {
                      setDone('');
                      const byId = { params: { path: { client_id: client.client_id } } };
                      if (await remove.run(() => answer(api.DELETE('/v1/oauth/client/{client_id}', byId)))) {
                        setDone(`Deleted ${client.client_id}; its tokens stopped working at once.`);
                        await clients.reload();
                      }
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <CreateClientForm
        disabled={!canManage}
        onCreated={async (client) => {
          setDone('');
          setCreated(client);
          await clients.reload();
        }}
      />
    </>
  );
}

function CreatedClientPanel(props: { client: CreatedClient; onDismiss: () => void }) {
  return (
    <div className="card issued-key" role="region" aria-label="New client">
      <h2>Client “{props.client.name || props.client.client_id}” created</h2>
      <p>Copy the secret now: it is shown this once. Lethe keeps only a hash of it.</p>
      <p>
        Client id: <code>{props.client.client_id}</code>
      </p>
      <p>
        Secret:{' '}
        <code className="secret-once" data-testid="client-secret">
          {props.client.client_secret}
        </code>
      </p>
      <CopyButton value={props.client.client_secret} label="Copy secret" />{' '}
      <button type="button" onClick={props.onDismiss}>
        Done, hide it
      </button>
    </div>
  );
}

function CreateClientForm(props: { disabled: boolean; onCreated: (client: CreatedClient) => Promise<void> }) {
  const { api, info } = useSession();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>([]);
  const create = useAction();
  const described = useResource(() => answer(api.GET('/v1/oauth/scopes')), 'scopes');
  // The service's list when it answered; the session's own scopes (undescribed) otherwise.
  const offered: ScopeDescription[] = described.data
    ? described.data.filter((entry) => info.scopes.includes(entry.scope))
    : info.scopes.map((scope) => ({ scope, description: '' }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (scopes.length === 0) {
      create.setError('Choose at least one scope.');
      return;
    }
    let client: CreatedClient | undefined;
    const ok = await create.run(async () => {
      client = await answer(api.POST('/v1/oauth/client', { body: { name: name.trim(), scopes } }));
    });
    if (ok && client) {
      setName('');
      setScopes([]);
      await props.onCreated(client);
    }
  }

  return (
    <form onSubmit={submit} className="card inline-form" aria-label="Create a client">
      <h2>Create a client</h2>
      <fieldset disabled={props.disabled} className="plain">
        <Field label="Name" hint="what the integration is, for example ticketing">
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              required
              maxLength={200}
              value={name}
              onChange={(event) => setName(event.target.value)}
            />
          )}
        </Field>
        <fieldset>
          <legend>Scopes (at most the ones you hold)</legend>
          <div className="scope-list">
            {offered.map(({ scope, description }) => (
              <div className="scope-choice" key={scope}>
                <label className="check">
                  <input
                    type="checkbox"
                    aria-describedby={description ? `scope-${scope}` : undefined}
                    checked={scopes.includes(scope as Scope)}
                    onChange={(event) =>
                      setScopes((current) =>
                        event.target.checked
                          ? [...current, scope as Scope]
                          : current.filter((chosen) => chosen !== scope),
                      )
                    }
                  />
                  <code>{scope}</code>
                </label>
                {description ? (
                  <p className="hint scope-description" id={`scope-${scope}`}>
                    {description}
                  </p>
                ) : null}
              </div>
            ))}
          </div>
        </fieldset>
        <ErrorNotice message={create.error} />
        <button type="submit" className="primary" disabled={create.pending}>
          Create client
        </button>
      </fieldset>
    </form>
  );
}
