// Manual systems (docs/human-steps.md): systems without an API that a person answers for. Lists them with
// their actions, fields, assignee, the subject's identifiers its respondents see and the languages its
// instructions are translated into; a form creates or replaces one (fields written one a line as
// `name: Label`, the instructions in other languages as JSON); each can be deleted, or loaded into the form
// to be changed. Tasks already given out keep their own copy of a system.
import { type FormEvent, useState } from 'react';
import { answer } from '../api.ts';
import {
  ConfirmButton,
  Empty,
  ErrorNotice,
  Field,
  Loading,
  PageHeader,
  type Translations,
  TranslationsField,
} from '../components.tsx';
import { useAction, useResource } from '../hooks.ts';
import type { ManualSystem } from '../schema.ts';
import { holds, useSession } from '../session.tsx';

/** `name: Label` lines into fields; a line without a label uses its name. */
export function parseFieldLines(text: string): { name: string; label: string }[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const colon = line.indexOf(':');
      const name = (colon < 0 ? line : line.slice(0, colon)).trim();
      const label = (colon < 0 ? '' : line.slice(colon + 1)).trim();
      return { name, label: label || name };
    });
}

export function ManualSystemsPage() {
  const { api, info } = useSession();
  const systems = useResource(() => answer(api.GET('/v1/manual-system')), 'manual-systems');
  const canChange = holds(info.scopes, 'manual-system:update');
  const save = useAction();
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [access, setAccess] = useState(true);
  const [erasure, setErasure] = useState(false);
  const [fields, setFields] = useState('');
  const [instructions, setInstructions] = useState('');
  const [assignee, setAssignee] = useState('');
  const [respondent, setRespondent] = useState('');
  const [identities, setIdentities] = useState('');
  const [translations, setTranslations] = useState<Translations | undefined>(undefined);
  // The translations field keeps its own text: a new key remounts it with the loaded system's.
  const [loaded, setLoaded] = useState(0);

  function edit(system: ManualSystem) {
    setKey(system.key);
    setName(system.name);
    setAccess(system.actions.includes('access'));
    setErasure(system.actions.includes('erasure'));
    setFields(system.fields.map((field) => `${field.name}: ${field.label}`).join('\n'));
    setInstructions(system.instructions);
    setAssignee(system.assignee ?? '');
    setRespondent(system.respondent_email ?? '');
    setIdentities(system.identities.join(', '));
    setTranslations(Object.keys(system.translations).length > 0 ? system.translations : undefined);
    setLoaded((count) => count + 1);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const actions = [...(access ? ['access' as const] : []), ...(erasure ? ['erasure' as const] : [])];
    const ok = await save.run(() =>
      answer(
        api.PUT('/v1/manual-system/{key}', {
          params: { path: { key: key.trim() } },
          body: {
            name: name.trim(),
            actions,
            fields: parseFieldLines(fields),
            instructions,
            assignee: assignee.trim() || null,
            respondent_email: respondent.trim() || null,
            identities: [
              ...new Set(
                identities
                  .split(',')
                  .map((kind) => kind.trim())
                  .filter(Boolean),
              ),
            ],
            ...(translations ? { translations } : {}),
          },
        }),
      ),
    );
    if (ok) void systems.reload();
  }

  return (
    <>
      <PageHeader title="Manual systems" />
      <ErrorNotice message={systems.error} />
      {systems.loading && !systems.data ? (
        <Loading what="manual systems" />
      ) : (systems.data ?? []).length === 0 ? (
        <Empty>No manual system yet.</Empty>
      ) : (
        <table className="responsive manual-systems">
          <caption className="visually-hidden">Manual systems by key</caption>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Name</th>
              <th scope="col">Actions</th>
              <th scope="col">Fields</th>
              <th scope="col">Assignee</th>
              <th scope="col">Identifiers shown</th>
              <th scope="col">Instructions also in</th>
              <th scope="col">
                <span className="visually-hidden">Change or delete</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(systems.data ?? []).map((system) => (
              <tr key={system.key} data-system-key={system.key}>
                <td data-label="Key">{system.key}</td>
                <td data-label="Name">{system.name}</td>
                <td data-label="Actions">{system.actions.join(', ')}</td>
                <td data-label="Fields">{system.fields.map((field) => field.label).join(', ')}</td>
                <td data-label="Assignee">{system.assignee ?? '—'}</td>
                <td data-label="Identifiers shown">{system.identities.join(', ') || '—'}</td>
                <td data-label="Instructions also in">
                  {Object.keys(system.translations).sort().join(', ') || '—'}
                </td>
                <td data-label="Change or delete">
                  {canChange ? (
                    <button type="button" onClick={() => edit(system)}>
                      Change {system.key}
                    </button>
                  ) : null}{' '}
                  {canChange ? (
                    <ConfirmButton
                      label={`Delete ${system.key}`}
                      confirmLabel={`Delete ${system.key} now`}
                      onConfirm={async () => {
                        await answer(
                          api.DELETE('/v1/manual-system/{key}', { params: { path: { key: system.key } } }),
                        );
                        void systems.reload();
                      }}
                    />
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {canChange ? (
        <form className="card" onSubmit={submit} aria-label="Create or replace a manual system">
          <h2>Create or replace</h2>
          <Field label="Key">
            {(id) => <input id={id} value={key} required onChange={(e) => setKey(e.target.value)} />}
          </Field>
          <Field label="Name">
            {(id) => <input id={id} value={name} required onChange={(e) => setName(e.target.value)} />}
          </Field>
          <fieldset>
            <legend>Actions</legend>
            <label>
              <input type="checkbox" checked={access} onChange={(e) => setAccess(e.target.checked)} /> access
            </label>{' '}
            <label>
              <input type="checkbox" checked={erasure} onChange={(e) => setErasure(e.target.checked)} />{' '}
              erasure
            </label>
          </fieldset>
          <Field label="Fields" hint="One a line: name: Label (names in lower case, 1 to 50 fields)">
            {(id, hint) => (
              <textarea
                id={id}
                aria-describedby={hint}
                rows={4}
                value={fields}
                onChange={(e) => setFields(e.target.value)}
              />
            )}
          </Field>
          <Field label="Instructions">
            {(id) => (
              <textarea
                id={id}
                rows={3}
                maxLength={10_000}
                value={instructions}
                onChange={(e) => setInstructions(e.target.value)}
              />
            )}
          </Field>
          <TranslationsField
            key={loaded}
            label="Instructions in other languages"
            example={'{"de": {"instructions": "…"}}'}
            value={translations}
            onChange={setTranslations}
          />
          <Field label="Assignee (an operator)">
            {(id) => <input id={id} value={assignee} onChange={(e) => setAssignee(e.target.value)} />}
          </Field>
          <Field label="Respondent email (optional)">
            {(id) => (
              <input
                id={id}
                type="email"
                value={respondent}
                onChange={(e) => setRespondent(e.target.value)}
              />
            )}
          </Field>
          <Field
            label="Identifiers the system needs"
            hint="the subject's identity kinds the person answering may see to find the record, comma-separated: email, phone_number or a custom identity's key (none: nothing of the subject is shown)"
          >
            {(id, hint) => (
              <input
                id={id}
                aria-describedby={hint}
                value={identities}
                onChange={(e) => setIdentities(e.target.value)}
              />
            )}
          </Field>
          <button type="submit" className="primary" disabled={save.pending}>
            Save
          </button>
          <ErrorNotice message={save.error} />
        </form>
      ) : null}
    </>
  );
}
