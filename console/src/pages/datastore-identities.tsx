// A datastore's identity attributes: which attributes hold which identity kind, as privacy requests
// match them (an email matches only an email attribute). Shows the declaration or the default, and edits
// it as one row per kind with comma-separated `table.attribute` names; a kind left empty is not declared,
// and saving no kind at all (or "Use the default") goes back to the default.
import { type FormEvent, useState } from 'react';
import { answer } from '../api.ts';
import { ErrorNotice, Field, Loading, SuccessNotice } from '../components.tsx';
import { useAction, useResource } from '../hooks.ts';
import { useCan } from '../scopes.tsx';
import { useSession } from '../session.tsx';
import type { Datastore, Ok } from '../schema.ts';

type IdentityAttributes = Ok<'/v1/datastore/{name}/identities', 'get'>;

interface Row {
  kind: string;
  names: string;
}

const rowsOf = (attributes: IdentityAttributes): Row[] =>
  attributes.declared
    ? Object.entries(attributes.identities).map(([kind, names]) => ({ kind, names: names.join(', ') }))
    : [
        { kind: 'email', names: '' },
        { kind: 'phone_number', names: '' },
      ];

function declarationOf(rows: Row[]): Record<string, string[]> {
  const declaration: Record<string, string[]> = {};
  for (const row of rows) {
    const names = row.names
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    if (row.kind.trim() !== '' && names.length > 0) declaration[row.kind.trim()] = names;
  }
  return declaration;
}

function IdentityEditor(props: { datastore: string }) {
  const { api } = useSession();
  const canUpdate = useCan('datastore:update');
  const canManage = useCan('datastore:*');
  const can = canUpdate || canManage;
  const byName = { params: { path: { name: props.datastore } } };
  const current = useResource(
    () => answer(api.GET('/v1/datastore/{name}/identities', byName)),
    `${props.datastore}/identities`,
  );
  const [rows, setRows] = useState<Row[] | null>(null);
  const [saved, setSaved] = useState('');
  const save = useAction();
  const shown = rows ?? (current.data ? rowsOf(current.data) : null);

  async function put(declaration: Record<string, string[]>) {
    setSaved('');
    let stored: IdentityAttributes | undefined;
    const call = api.PUT('/v1/datastore/{name}/identities', { ...byName, body: declaration });
    if (await save.run(async () => (stored = await answer(call)))) {
      setRows(null);
      await current.reload();
      setSaved(stored?.declared ? 'Identity attributes saved.' : 'Back to the default identity attributes.');
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (shown) void put(declarationOf(shown));
  }

  const change = (index: number, patch: Partial<Row>) =>
    setRows((shown ?? []).map((row, at) => (at === index ? { ...row, ...patch } : row)));

  if (!current.data || !shown) {
    return current.error ? <ErrorNotice message={current.error} /> : <Loading what="identity attributes" />;
  }
  return (
    <form onSubmit={submit} className="card" aria-label={`Identity attributes of ${props.datastore}`}>
      <p data-testid="identity-state">
        {current.data.declared ? (
          <>
            <strong>Declared</strong>: a privacy request matches an entity only through these attributes.
          </>
        ) : (
          <>
            <strong>Default</strong> (nothing declared): attributes named <code>email</code> are emails and{' '}
            <code>phone_number</code> or <code>phone</code> phone numbers, in any table; custom identities
            match nothing.
          </>
        )}
      </p>
      <fieldset disabled={!can}>
        <legend>Attributes by identity kind</legend>
        {can ? null : (
          <p className="hint scope-note">
            Read only: this needs the scope <code>datastore:update</code>, which your sign-in does not have.
          </p>
        )}
        {shown.map((row, index) => (
          <div className="inline-form" key={index}>
            <Field label={`Kind ${index + 1}`} hint="email, phone_number or a custom identity's key">
              {(id, describedBy) => (
                <input
                  id={id}
                  aria-describedby={describedBy}
                  value={row.kind}
                  onChange={(event) => change(index, { kind: event.target.value })}
                />
              )}
            </Field>
            <Field label={`Attributes of kind ${index + 1}`} hint="table.attribute, comma-separated">
              {(id, describedBy) => (
                <input
                  id={id}
                  aria-describedby={describedBy}
                  value={row.names}
                  onChange={(event) => change(index, { names: event.target.value })}
                />
              )}
            </Field>
            <button type="button" onClick={() => setRows(shown.filter((_, at) => at !== index))}>
              Remove kind {index + 1}
            </button>
          </div>
        ))}
        <p>
          <button type="button" onClick={() => setRows([...shown, { kind: '', names: '' }])}>
            Add a kind
          </button>
        </p>
        <ErrorNotice message={save.error} />
        {saved ? <SuccessNotice message={saved} /> : null}
        <button type="submit" className="primary" disabled={save.pending}>
          Save identity attributes
        </button>{' '}
        <button type="button" disabled={save.pending || !current.data.declared} onClick={() => void put({})}>
          Use the default
        </button>
      </fieldset>
    </form>
  );
}

export function IdentityAttributesSection(props: { datastores: Datastore[] }) {
  const [chosen, setChosen] = useState('');
  const datastore = props.datastores.some((store) => store.name === chosen)
    ? chosen
    : (props.datastores[0]?.name ?? '');
  if (!datastore) return null;
  return (
    <section aria-labelledby="identities-heading">
      <h2 id="identities-heading">Identity attributes</h2>
      <p className="hint">
        A privacy request's email matches only an attribute declared as email (a <code>notes</code> field
        holding the same address is no match); likewise phone numbers and custom identities.
      </p>
      <Field label="Datastore">
        {(id) => (
          <select id={id} value={datastore} onChange={(event) => setChosen(event.target.value)}>
            {props.datastores.map((store) => (
              <option key={store.name} value={store.name}>
                {store.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <IdentityEditor key={datastore} datastore={datastore} />
    </section>
  );
}
