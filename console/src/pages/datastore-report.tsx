// What a datastore's part of every access report says (issue 37): its disclosure (purposes, recipients,
// retention, source, automated decisions: GET/PUT /v1/datastore/{name}/disclosure, the report's "How we
// use your data"), and the display names the report shows instead of entity and attribute names
// (PUT /v1/datastore/{name}/labels, `users` and `users.email`). A list is one item a line.
import { type FormEvent, useState } from 'react';
import { answer } from '../api.ts';
import { ErrorNotice, Field, Loading, SuccessNotice } from '../components.tsx';
import { useAction, useResource } from '../hooks.ts';
import { useCan } from '../scopes.tsx';
import { useSession } from '../session.tsx';
import type { Datastore, Ok } from '../schema.ts';

type DisclosureView = Ok<'/v1/datastore/{name}/disclosure', 'get'>;

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

function DisclosureForm(props: { datastore: string; current: DisclosureView; onSaved: () => Promise<void> }) {
  const { api } = useSession();
  const can = useCan('datastore:update');
  const [purposes, setPurposes] = useState(props.current.purposes.join('\n'));
  const [recipients, setRecipients] = useState(props.current.recipients.join('\n'));
  const [retention, setRetention] = useState(props.current.retention);
  const [source, setSource] = useState(props.current.source);
  const [automated, setAutomated] = useState(props.current.automated_decisions);
  const save = useAction();
  const [saved, setSaved] = useState('');

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved('');
    const body = {
      purposes: lines(purposes),
      recipients: lines(recipients),
      retention: retention.trim(),
      source: source.trim(),
      automated_decisions: automated.trim(),
    };
    const call = api.PUT('/v1/datastore/{name}/disclosure', {
      params: { path: { name: props.datastore } },
      body,
    });
    if (await save.run(() => answer(call))) {
      setSaved(`What reports say of ${props.datastore} is saved.`);
      await props.onSaved();
    }
  }

  return (
    <form onSubmit={submit} className="card" aria-label={`How ${props.datastore} uses the data`}>
      <h3>How we use the data (GDPR art. 15(1))</h3>
      <fieldset disabled={!can}>
        <legend className="visually-hidden">Disclosure of {props.datastore}</legend>
        <Field label="Purposes" hint="why the data is processed, one purpose a line">
          {(id, describedBy) => (
            <textarea
              id={id}
              aria-describedby={describedBy}
              rows={3}
              value={purposes}
              onChange={(event) => setPurposes(event.target.value)}
            />
          )}
        </Field>
        <Field label="Recipients" hint="who receives it, one organisation or category a line">
          {(id, describedBy) => (
            <textarea
              id={id}
              aria-describedby={describedBy}
              rows={3}
              value={recipients}
              onChange={(event) => setRecipients(event.target.value)}
            />
          )}
        </Field>
        <Field label="Retention" hint="how long it is kept, or how that is decided">
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              maxLength={1000}
              value={retention}
              onChange={(event) => setRetention(event.target.value)}
            />
          )}
        </Field>
        <Field label="Source" hint="where the data comes from when not from the subject (empty: from them)">
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              maxLength={1000}
              value={source}
              onChange={(event) => setSource(event.target.value)}
            />
          )}
        </Field>
        <Field
          label="Automated decisions"
          hint="any automated decision or profiling, its logic (empty: none)"
        >
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              maxLength={1000}
              value={automated}
              onChange={(event) => setAutomated(event.target.value)}
            />
          )}
        </Field>
        <ErrorNotice message={save.error} />
        {saved ? <SuccessNotice message={saved} /> : null}
        <button type="submit" className="primary" disabled={save.pending}>
          Save disclosure
        </button>
      </fieldset>
    </form>
  );
}

/** `users: Your account` lines to `{ users: 'Your account' }`; a line without a colon names nothing. */
function labelsOf(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const line of lines(text)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const label = line.slice(colon + 1).trim();
    if (name && label) labels[name] = label;
  }
  return labels;
}

function DisplayNamesForm(props: { datastore: Datastore; onSaved: () => Promise<void> }) {
  const { api } = useSession();
  const can = useCan('datastore:*');
  const [text, setText] = useState(
    Object.entries(props.datastore.labels)
      .map(([name, label]) => `${name}: ${label}`)
      .join('\n'),
  );
  const save = useAction();
  const [saved, setSaved] = useState('');

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved('');
    const call = api.PUT('/v1/datastore/{name}/labels', {
      params: { path: { name: props.datastore.name } },
      body: labelsOf(text),
    });
    if (await save.run(() => answer(call))) {
      setSaved('Display names saved.');
      await props.onSaved();
    }
  }

  return (
    <form onSubmit={submit} className="card" aria-label={`Display names of ${props.datastore.name}`}>
      <h3>Display names</h3>
      <fieldset disabled={!can}>
        <legend className="visually-hidden">Display names of {props.datastore.name}</legend>
        <Field
          label="Names shown in reports"
          hint="one a line: users: Your account, or users.email: Email address"
        >
          {(id, describedBy) => (
            <textarea
              id={id}
              aria-describedby={describedBy}
              rows={5}
              value={text}
              onChange={(event) => setText(event.target.value)}
            />
          )}
        </Field>
        <ErrorNotice message={save.error} />
        {saved ? <SuccessNotice message={saved} /> : null}
        <button type="submit" className="primary" disabled={save.pending}>
          Save display names
        </button>
      </fieldset>
    </form>
  );
}

function ReportParts(props: { datastore: Datastore; reload: () => Promise<void> }) {
  const { api } = useSession();
  const byName = { params: { path: { name: props.datastore.name } } };
  const disclosure = useResource(
    () => answer(api.GET('/v1/datastore/{name}/disclosure', byName)),
    `${props.datastore.name}/disclosure`,
  );
  if (!disclosure.data)
    return disclosure.error ? <ErrorNotice message={disclosure.error} /> : <Loading what="the disclosure" />;
  return (
    <>
      <DisclosureForm
        datastore={props.datastore.name}
        current={disclosure.data}
        onSaved={disclosure.reload}
      />
      <DisplayNamesForm datastore={props.datastore} onSaved={props.reload} />
    </>
  );
}

export function ReportSection(props: { datastores: Datastore[]; reload: () => Promise<void> }) {
  const [chosen, setChosen] = useState('');
  const datastore =
    props.datastores.find((store) => store.name === chosen) ?? props.datastores[0] ?? undefined;
  if (!datastore) return null;
  return (
    <section aria-labelledby="report-heading">
      <h2 id="report-heading">What access reports say</h2>
      <p className="hint">
        Every access report shows, for each datastore holding the person&apos;s data, how it is used and under
        which names.
      </p>
      <Field label="Datastore of the report">
        {(id) => (
          <select id={id} value={datastore.name} onChange={(event) => setChosen(event.target.value)}>
            {props.datastores.map((store) => (
              <option key={store.name} value={store.name}>
                {store.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <ReportParts key={datastore.name} datastore={datastore} reload={props.reload} />
    </section>
  );
}
