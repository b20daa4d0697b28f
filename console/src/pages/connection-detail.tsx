// One connection: its secrets (URL and Authorization header value, write-only), its OAuth client
// credentials (set, patch, delete; the client secret write-only), its callback signing secret (rotated
// here, the new one shown once) and deletion. A secret typed here is sent once and cleared from the form;
// the page only ever shows whether one is stored. Forms are disabled without the scope that would let
// them act. A refused save keeps the form as typed.
import { type FormEvent, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { answer } from '../api.ts';
import {
  ConfirmButton,
  ErrorNotice,
  Field,
  Loading,
  PageHeader,
  SecretOnce,
  SuccessNotice,
} from '../components.tsx';
import { formatDateTime } from '../format.ts';
import { useAction, useResource } from '../hooks.ts';
import { Guarded, useCan } from '../scopes.tsx';
import { useSession } from '../session.tsx';
import type { Body, Connection, SigningSecretRotation } from '../schema.ts';
import { connectionAuthLabel } from './connections.tsx';

function SecretsForm(props: { connection: Connection; onSaved: (connection: Connection) => void }) {
  const { api } = useSession();
  const [url, setUrl] = useState(props.connection.secrets?.url ?? '');
  const [authorization, setAuthorization] = useState('');
  const save = useAction();
  const [saved, setSaved] = useState('');
  const stored = Boolean(props.connection.secrets?.authorization);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved('');
    const body: Body<'/v1/connection/{connection_key}', 'put'> = { url: url.trim() };
    if (authorization) body.authorization = authorization;
    let updated: Connection | undefined;
    const ok = await save.run(async () => {
      updated = await answer(
        api.PUT('/v1/connection/{connection_key}', {
          params: { path: { connection_key: props.connection.key } },
          body,
        }),
      );
    });
    // A refused save keeps what was typed, so that fixing the URL does not mean typing the value again.
    if (ok && updated) {
      setAuthorization('');
      setSaved('Secrets saved.');
      props.onSaved(updated);
    }
  }

  return (
    <form onSubmit={submit} className="card" aria-label="Connection secrets">
      <h2>Secrets</h2>
      <Guarded scope="connection:create_or_update">
        <Field
          label="Callback URL"
          hint="https; internal addresses are refused unless allowed by the service"
        >
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              type="url"
              required
              value={url}
              onChange={(event) => setUrl(event.target.value)}
            />
          )}
        </Field>
        <Field
          label="Authorization header value"
          hint={
            stored
              ? 'A value is stored (never shown). Saving with this field empty removes it; type it again to keep one.'
              : 'Optional, for example "Bearer …" or "Basic …". Write-only: never shown after saving.'
          }
        >
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              type="password"
              autoComplete="off"
              value={authorization}
              onChange={(event) => setAuthorization(event.target.value)}
            />
          )}
        </Field>
        <ErrorNotice message={save.error} />
        {saved ? <SuccessNotice message={saved} /> : null}
        <button type="submit" className="primary" disabled={save.pending}>
          Save secrets
        </button>
      </Guarded>
    </form>
  );
}

function OAuthForm(props: {
  connection: Connection;
  message: string;
  onSaved: (connection: Connection, message: string) => void;
}) {
  const { api } = useSession();
  const current = props.connection.oauth;
  const [tokenUrl, setTokenUrl] = useState(current?.token_url ?? '');
  const [scope, setScope] = useState(current?.scope ?? '');
  const [clientId, setClientId] = useState(current?.client_id ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const action = useAction();
  const byKey = { params: { path: { connection_key: props.connection.key } } };

  async function submit(event: FormEvent) {
    event.preventDefault();
    let call: () => Promise<Connection>;
    if (!current) {
      const body: Body<'/v1/connection/{connection_key}/oauth', 'put'> = {
        grant_type: 'client_credentials',
        token_url: tokenUrl.trim(),
        scope: scope.trim(),
        client_id: clientId.trim(),
        client_secret: clientSecret,
      };
      call = () => answer(api.PUT('/v1/connection/{connection_key}/oauth', { ...byKey, body }));
    } else {
      const body: Body<'/v1/connection/{connection_key}/oauth', 'patch'> = {};
      if (tokenUrl.trim() !== current.token_url) body.token_url = tokenUrl.trim();
      if (scope.trim() !== current.scope) body.scope = scope.trim();
      if (clientId.trim() !== current.client_id) body.client_id = clientId.trim();
      if (clientSecret) body.client_secret = clientSecret;
      if (Object.keys(body).length === 0) {
        action.setError('Nothing changed: edit a field or type a new client secret.');
        return;
      }
      call = () => answer(api.PATCH('/v1/connection/{connection_key}/oauth', { ...byKey, body }));
    }
    let updated: Connection | undefined;
    const ok = await action.run(async () => {
      updated = await call();
    });
    if (ok && updated) {
      setClientSecret('');
      props.onSaved(updated, current ? 'OAuth configuration updated.' : 'OAuth configuration set.');
    }
  }

  return (
    <form onSubmit={submit} className="card" aria-label="OAuth client credentials">
      <h2>OAuth client credentials</h2>
      <Guarded scope="connection:create_or_update">
        <p className="hint">
          {current
            ? 'Lethe fetches a token from the token URL and calls the target with it. Change only the fields you need.'
            : 'Optional. Once set, OAuth replaces the Authorization header until it is deleted.'}
        </p>
        <Field label="Token URL">
          {(id) => (
            <input
              id={id}
              type="url"
              required
              value={tokenUrl}
              onChange={(event) => setTokenUrl(event.target.value)}
            />
          )}
        </Field>
        <Field label="Scope" hint="space-separated; may be empty">
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              value={scope}
              onChange={(event) => setScope(event.target.value)}
            />
          )}
        </Field>
        <Field label="Client id">
          {(id) => (
            <input id={id} required value={clientId} onChange={(event) => setClientId(event.target.value)} />
          )}
        </Field>
        <Field
          label="Client secret"
          hint={
            current
              ? 'A secret is stored (never shown). Leave empty to keep it.'
              : 'Write-only: never shown after saving.'
          }
        >
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              type="password"
              autoComplete="off"
              required={!current}
              value={clientSecret}
              onChange={(event) => setClientSecret(event.target.value)}
            />
          )}
        </Field>
        <ErrorNotice message={action.error} />
        {props.message ? <SuccessNotice message={props.message} /> : null}
        <div className="buttons">
          <button type="submit" className="primary" disabled={action.pending}>
            {current ? 'Save OAuth changes' : 'Set OAuth'}
          </button>
          {current ? (
            <ConfirmButton
              label="Delete OAuth"
              confirmLabel="Delete the OAuth configuration"
              onConfirm={async () => {
                await action.run(async () => {
                  await answer(api.DELETE('/v1/connection/{connection_key}/oauth', byKey));
                  const connection = await answer(api.GET('/v1/connection/{connection_key}', byKey));
                  props.onSaved(connection, 'OAuth configuration deleted.');
                });
              }}
            />
          ) : null}
        </div>
      </Guarded>
    </form>
  );
}

const MAX_GRACE_SECONDS = 86_400;

/**
 * The callback signing secret: whether one is set, and rotation (POST /v1/connection/{key}/signing-secret)
 * with an optional grace period during which callbacks carry a signature by the old secret too. The new
 * secret is shown once; nothing here can read a stored one.
 */
function SigningSecretForm(props: { connection: Connection }) {
  const { api } = useSession();
  const [graceSeconds, setGraceSeconds] = useState('0');
  const [rotated, setRotated] = useState<SigningSecretRotation | null>(null);
  const rotate = useAction();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setRotated(null);
    let rotation: SigningSecretRotation | undefined;
    const ok = await rotate.run(async () => {
      rotation = await answer(
        api.POST('/v1/connection/{connection_key}/signing-secret', {
          params: { path: { connection_key: props.connection.key } },
          body: { grace_period_seconds: Number(graceSeconds) || 0 },
        }),
      );
    });
    if (ok && rotation) setRotated(rotation);
  }

  return (
    <form onSubmit={submit} className="card" aria-label="Callback signing secret">
      <h2>Signing secret</h2>
      <p className="hint">
        {props.connection.has_signing_secret === false
          ? 'Callbacks through this connection are not signed yet. Rotating creates a secret.'
          : 'Callbacks through this connection carry a Lethe-Signature made with this secret. It was shown once, when it was created; it cannot be read again.'}
      </p>
      {rotated ? (
        <SecretOnce
          label={`New signing secret of ${props.connection.key}`}
          value={rotated.signing_secret}
          note={
            rotated.previous_secret_expires_at
              ? `Shown this once. Until ${formatDateTime(rotated.previous_secret_expires_at)} callbacks also carry a signature by the previous secret.`
              : 'Shown this once. The previous secret no longer signs anything.'
          }
          onDismiss={() => setRotated(null)}
        />
      ) : null}
      <Guarded scope="connection:create_or_update">
        <Field
          label="Grace period (seconds)"
          hint="how long the previous secret keeps signing alongside the new one; 0 stops it at once"
        >
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              type="number"
              min={0}
              max={MAX_GRACE_SECONDS}
              value={graceSeconds}
              onChange={(event) => setGraceSeconds(event.target.value)}
            />
          )}
        </Field>
        <ErrorNotice message={rotate.error} />
        <button type="submit" className="primary" disabled={rotate.pending}>
          Rotate signing secret
        </button>
      </Guarded>
    </form>
  );
}

export function ConnectionDetailPage(props: { connectionKey: string }) {
  const { api } = useSession();
  const [, navigate] = useLocation();
  const byKey = { params: { path: { connection_key: props.connectionKey } } };
  const loaded = useResource(
    () => answer(api.GET('/v1/connection/{connection_key}', byKey)),
    props.connectionKey,
  );
  const [override, setOverride] = useState<Connection | null>(null);
  const [oauthMessage, setOauthMessage] = useState('');
  const remove = useAction();
  const canDelete = useCan('connection:delete');
  const connection = override ?? loaded.data;

  return (
    <>
      <PageHeader title={connection ? `Connection ${connection.name}` : `Connection ${props.connectionKey}`}>
        <Link href="/connections">All connections</Link>
      </PageHeader>
      <ErrorNotice message={loaded.error} />
      {!connection ? (
        loaded.loading ? (
          <Loading what="the connection" />
        ) : null
      ) : (
        <>
          <dl className="facts">
            <dt>Key</dt>
            <dd>
              <code>{connection.key}</code>
            </dd>
            <dt>Type / access</dt>
            <dd>
              {connection.connection_type} / {connection.access}
            </dd>
            <dt>Authentication</dt>
            <dd>{connectionAuthLabel(connection)}</dd>
            <dt>Webhooks using it</dt>
            <dd>{connection.webhooks_using}</dd>
            <dt>Updated</dt>
            <dd>{formatDateTime(connection.updated_at)}</dd>
            {connection.description ? (
              <>
                <dt>Description</dt>
                <dd>{connection.description}</dd>
              </>
            ) : null}
          </dl>
          <div className="two-columns">
            <SecretsForm connection={connection} onSaved={setOverride} />
            <OAuthForm
              // A new configuration (set, changed, deleted) starts the form afresh from the stored values.
              key={JSON.stringify(connection.oauth)}
              connection={connection}
              message={oauthMessage}
              onSaved={(answer, message) => {
                setOverride(answer);
                setOauthMessage(message);
              }}
            />
          </div>
          <SigningSecretForm connection={connection} />
          <section aria-labelledby="danger-heading" className="danger-zone">
            <h2 id="danger-heading">Delete</h2>
            <p className="hint">
              A connection that webhooks still use cannot be deleted; the answer names them.
            </p>
            <ErrorNotice message={remove.error} />
            {canDelete ? null : (
              <p className="hint scope-note">
                Read only: deleting needs the scope <code>connection:delete</code>.
              </p>
            )}
            <ConfirmButton
              label="Delete connection"
              confirmLabel={`Delete ${connection.key} for good`}
              disabled={!canDelete}
              onConfirm={async () => {
                if (await remove.run(() => answer(api.DELETE('/v1/connection/{connection_key}', byKey))))
                  navigate('/connections');
              }}
            />
          </section>
        </>
      )}
    </>
  );
}
