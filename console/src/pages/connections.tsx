// The HTTPS connections webhooks call through: the list and the create form (PATCH /v1/connection). A
// created connection's signing secret is shown once, as the API answers it.
import { type FormEvent, useState } from 'react';
import { Link } from 'wouter';
import { answer, answerOne } from '../api.ts';
import { Empty, ErrorNotice, Field, Loading, PageHeader, SecretOnce } from '../components.tsx';
import { useAction, useResource } from '../hooks.ts';
import { Guarded } from '../scopes.tsx';
import { useSession } from '../session.tsx';
import type { Body, Connection, UpsertedConnection } from '../schema.ts';

type Access = Body<'/v1/connection', 'patch'>[number]['access'];

export function connectionAuthLabel(connection: Connection): string {
  if (connection.oauth) return 'OAuth client credentials';
  if (connection.secrets?.authorization) return 'Authorization header';
  if (connection.secrets) return 'none';
  return 'no secrets yet';
}

export function ConnectionsPage() {
  const { api } = useSession();
  const connections = useResource(
    () => answer(api.GET('/v1/connection', { params: { query: { size: 1000 } } })),
    'connections',
  );
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [access, setAccess] = useState<Access>('read');
  const [description, setDescription] = useState('');
  const create = useAction();
  const [created, setCreated] = useState<UpsertedConnection | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setCreated(null);
    const item: Body<'/v1/connection', 'patch'>[number] = {
      name: name.trim(),
      key: key.trim(),
      connection_type: 'https',
      access,
    };
    if (description.trim()) item.description = description.trim();
    let upserted: UpsertedConnection | undefined;
    const ok = await create.run(async () => {
      upserted = await answerOne(api.PATCH('/v1/connection', { body: [item] }));
    });
    if (ok) {
      if (upserted?.signing_secret) setCreated(upserted);
      setName('');
      setKey('');
      setDescription('');
      await connections.reload();
    }
  }

  return (
    <>
      <PageHeader title="Connections" />
      <p className="hint">
        A connection is the HTTPS target a webhook calls. Its URL and credentials are set on the connection's
        page; secrets are write-only and never shown again.
      </p>
      <ErrorNotice message={connections.error} />
      {connections.loading && !connections.data ? (
        <Loading what="connections" />
      ) : connections.data && connections.data.items.length === 0 ? (
        <Empty>No connection yet. Create one below, then set its URL and credentials.</Empty>
      ) : connections.data ? (
        <table className="responsive">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">URL</th>
              <th scope="col">Authentication</th>
              <th scope="col">Webhooks using it</th>
            </tr>
          </thead>
          <tbody>
            {connections.data.items.map((connection) => (
              <tr key={connection.key}>
                <td data-label="Name">
                  <Link href={`/connections/${encodeURIComponent(connection.key)}`}>{connection.name}</Link>
                </td>
                <td data-label="Key">
                  <code>{connection.key}</code>
                </td>
                <td data-label="URL" className="url">
                  {connection.secrets?.url ?? '—'}
                </td>
                <td data-label="Authentication">{connectionAuthLabel(connection)}</td>
                <td data-label="Webhooks using it">{connection.webhooks_using}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {created?.signing_secret ? (
        <SecretOnce
          label={`Signing secret of ${created.key}`}
          value={created.signing_secret}
          note="Shown this once. Receivers verify the Lethe-Signature header with it (docs/callbacks.md); rotate it on the connection's page to get a new one."
          onDismiss={() => setCreated(null)}
        />
      ) : null}
      <form onSubmit={submit} className="card" aria-label="Create a connection">
        <h2>Create a connection</h2>
        <Guarded scope="connection:create_or_update" className="inline-form">
          <Field label="Name">
            {(id) => (
              <input id={id} required value={name} onChange={(event) => setName(event.target.value)} />
            )}
          </Field>
          <Field label="Key" hint="letters, digits, _ . -; used in webhook definitions">
            {(id, describedBy) => (
              <input
                id={id}
                aria-describedby={describedBy}
                required
                pattern="[A-Za-z0-9_][A-Za-z0-9_.\-]*"
                value={key}
                onChange={(event) => setKey(event.target.value)}
              />
            )}
          </Field>
          <Field label="Access">
            {(id) => (
              <select id={id} value={access} onChange={(event) => setAccess(event.target.value as Access)}>
                <option value="read">read</option>
                <option value="write">write</option>
              </select>
            )}
          </Field>
          <Field label="Description (optional)">
            {(id) => (
              <input id={id} value={description} onChange={(event) => setDescription(event.target.value)} />
            )}
          </Field>
          <ErrorNotice message={create.error} />
          <button type="submit" className="primary" disabled={create.pending}>
            Create connection
          </button>
        </Guarded>
      </form>
    </>
  );
}
