// The roles editor on the Users page: the built-in roles and the custom ones (GET /v1/role), a form that
// defines or changes a custom role as a named set of scopes (PUT /v1/role/{name}), and deletion of a custom
// role nobody holds. Changing roles needs user:*; a role can hold only scopes its maker holds (the API
// refuses the rest, the form offers only those).
import { type FormEvent, useState } from 'react';
import { CheckList, ConfirmButton, ErrorNotice, Field, Loading, SuccessNotice } from '../components.tsx';
import { useAction, useResource } from '../hooks.ts';
import { holds, useSession } from '../session.tsx';
import { answer } from '../api.ts';
import type { Body } from '../schema.ts';

type Scope = Body<'/v1/role/{name}', 'put'>['scopes'][number];

export function RolesEditor(props: { onChanged: () => Promise<void> }) {
  const { api, info } = useSession();
  const canManage = holds(info.scopes, 'user:*');
  const roles = useResource(() => answer(api.GET('/v1/role')), 'roles');
  const scopes = useResource(() => answer(api.GET('/v1/oauth/scopes')), 'scopes');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [chosen, setChosen] = useState<Scope[]>([]);
  const save = useAction();
  const remove = useAction();
  const [done, setDone] = useState('');

  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone('');
    const role = name.trim().toLowerCase();
    const saved = await save.run(() =>
      answer(
        api.PUT('/v1/role/{name}', {
          params: { path: { name: role } },
          body: { scopes: chosen, description: description.trim() },
        }),
      ),
    );
    if (saved) {
      setDone(`Saved the role ${role}; whoever holds it has its scopes now.`);
      setName('');
      setDescription('');
      setChosen([]);
      await roles.reload();
      await props.onChanged();
    }
  }

  const offered = (scopes.data ?? []).filter((scope) => holds(info.scopes, scope.scope));
  return (
    <section aria-labelledby="roles-heading">
      <h2 id="roles-heading">Roles</h2>
      <p className="hint">
        An operator holds the scopes of all their roles. The four built-in roles cannot change; a custom role
        is a named set of scopes, and the identity provider&apos;s role map may name it too.
      </p>
      <ErrorNotice message={roles.error || remove.error} />
      {done ? <SuccessNotice message={done} /> : null}
      {roles.loading && !roles.data ? (
        <Loading what="roles" />
      ) : roles.data ? (
        <table className="responsive" aria-label="Roles">
          <thead>
            <tr>
              <th scope="col">Role</th>
              <th scope="col">Scopes</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {roles.data.map((role) => (
              <tr key={role.name}>
                <td data-label="Role">
                  <strong>{role.name}</strong>{' '}
                  {role.built_in ? <span className="hint">(built in)</span> : null}
                  {role.description ? <div className="hint">{role.description}</div> : null}
                </td>
                <td data-label="Scopes">
                  <code>{role.scopes.join(' ')}</code>
                </td>
                <td data-label="Actions">
                  {role.built_in ? null : (
                    <>
                      <button
                        type="button"
                        disabled={!canManage}
                        onClick={() => {
                          setName(role.name);
                          setDescription(role.description);
                          setChosen(role.scopes as Scope[]);
                        }}
                      >
                        Edit {role.name}
                      </button>{' '}
                      <ConfirmButton
                        label={`Delete ${role.name}`}
                        confirmLabel={`Yes, delete ${role.name}`}
                        disabled={!canManage || remove.pending}
                        onConfirm={async () => {
                          setDone('');
                          if (
                            await remove.run(() =>
                              answer(
                                api.DELETE('/v1/role/{name}', { params: { path: { name: role.name } } }),
                              ),
                            )
                          ) {
                            setDone(`Deleted the role ${role.name}.`);
                            await roles.reload();
                          }
                        }}
                      />
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <form onSubmit={submit} className="card inline-form" aria-label="Define a role">
        <h3>Define or change a custom role</h3>
        <fieldset disabled={!canManage} className="plain">
          <Field label="Role name" hint="lower-case letters, digits, _ and -, starting with a letter">
            {(id, describedBy) => (
              <input
                id={id}
                aria-describedby={describedBy}
                required
                maxLength={63}
                value={name}
                onChange={(event) => setName(event.target.value)}
              />
            )}
          </Field>
          <Field label="Description (optional)">
            {(id) => (
              <input
                id={id}
                maxLength={500}
                value={description}
                onChange={(event) => setDescription(event.target.value)}
              />
            )}
          </Field>
          <CheckList
            legend="Scopes"
            options={offered.map((scope) => ({ name: scope.scope, description: scope.description }))}
            chosen={chosen}
            setChosen={setChosen}
            nameAs="code"
          />
          <ErrorNotice message={save.error} />
          <button type="submit" className="primary" disabled={save.pending || chosen.length === 0}>
            Save role
          </button>
        </fieldset>
      </form>
    </section>
  );
}
