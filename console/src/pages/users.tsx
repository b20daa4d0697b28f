// Operator accounts: the list (with how each signs in: a password, the identity provider, or SCIM, and
// the provider's groups), the create form (username, password, roles, email), deletion, and the roles
// editor (roles.tsx), through /v1/user and /v1/role. Managing users needs the scope user:* (owners and the root client); without it the page shows
// the list read-only, and without user:read it says so. Passwords are sent once and never shown.
import { type FormEvent, useState } from 'react';
import {
  CheckList,
  ConfirmButton,
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
import { RolesEditor } from './roles.tsx';

type Role = string;

/** How the operator signs in, in words. */
function signInOf(provider: 'oidc' | 'scim' | null): string {
  if (provider === 'oidc') return 'identity provider';
  if (provider === 'scim') return 'identity provider (provisioned by SCIM)';
  return 'password';
}

const MIN_PASSWORD = 12;

export function UsersPage() {
  const { api, info } = useSession();
  const canRead = holds(info.scopes, 'user:read');
  const canManage = holds(info.scopes, 'user:*');
  const users = useResource(() => (canRead ? answer(api.GET('/v1/user')) : Promise.resolve([])), 'users');
  const remove = useAction();
  const [done, setDone] = useState('');

  return (
    <>
      <PageHeader title="Users" />
      <p className="hint">
        Operators sign in with their own name, and approvals, denials and the audit log name them. Management
        clients (for integrations) are on the Clients page.
      </p>
      {!canManage ? (
        <p className="notice" role="status">
          {canRead
            ? 'You can see the operators but not change them: that needs the owner role.'
            : 'Your account cannot see operators: that needs the owner role.'}
        </p>
      ) : null}
      <ErrorNotice message={users.error || remove.error} />
      {done ? <SuccessNotice message={done} /> : null}
      {!canRead ? null : users.loading && !users.data ? (
        <Loading what="users" />
      ) : users.data && users.data.length === 0 ? (
        <Empty>No operator yet. Create the first one below; until then, sign in with a client.</Empty>
      ) : users.data ? (
        <table className="responsive">
          <thead>
            <tr>
              <th scope="col">Username</th>
              <th scope="col">Roles</th>
              <th scope="col">Signs in with</th>
              <th scope="col">Groups</th>
              <th scope="col">Email</th>
              <th scope="col">Created by</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.data.map((user) => (
              <tr key={user.username}>
                <td data-label="Username">
                  <code>{user.username}</code>
                  {user.username === info.username ? <span className="hint"> (you)</span> : null}
                </td>
                <td data-label="Roles">
                  {user.roles.length > 0 ? user.roles.join(', ') : <span className="hint">none</span>}
                </td>
                <td data-label="Signs in with">
                  {signInOf(user.provider)}
                  {user.active ? null : <strong> (deactivated)</strong>}
                </td>
                <td data-label="Groups">
                  {user.groups.length > 0 ? user.groups.join(', ') : <span className="hint">none</span>}
                </td>
                <td data-label="Email">{user.email ?? <span className="hint">none</span>}</td>
                <td data-label="Created by">{user.created_by}</td>
                <td data-label="Created">{formatDateTime(user.created_at)}</td>
                <td data-label="Actions">
                  <ConfirmButton
                    label={`Delete ${user.username}`}
                    confirmLabel={`Yes, delete ${user.username}`}
                    disabled={!canManage || remove.pending}
                    onConfirm={async () => {
                      setDone('');
                      if (
                        await remove.run(() =>
                          answer(
                            api.DELETE('/v1/user/{username}', {
                              params: { path: { username: user.username } },
                            }),
                          ),
                        )
                      ) {
                        setDone(`Deleted ${user.username}; their sessions ended at once.`);
                        await users.reload();
                      }
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <CreateUserForm
        disabled={!canManage}
        onCreated={async (username) => {
          setDone(`Created ${username}. They can sign in now.`);
          await users.reload();
        }}
      />
      {canRead ? <RolesEditor onChanged={users.reload} /> : null}
    </>
  );
}

function CreateUserForm(props: { disabled: boolean; onCreated: (username: string) => Promise<void> }) {
  const { api } = useSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [email, setEmail] = useState('');
  // No role is ticked beforehand: a preset "viewer" stayed ticked beside "owner" (issue 37).
  const [roles, setRoles] = useState<Role[]>([]);
  const create = useAction();
  const available = useResource(() => answer(api.GET('/v1/role')), 'roles-to-give');

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (roles.length === 0) {
      create.setError('Choose at least one role.');
      return;
    }
    const name = username.trim().toLowerCase();
    const created = await create.run(() =>
      answer(
        api.POST('/v1/user', { body: { username: name, password, roles, email: email.trim() || null } }),
      ),
    );
    setPassword('');
    if (created) {
      setUsername('');
      setEmail('');
      setRoles([]);
      await props.onCreated(name);
    }
  }

  return (
    <form onSubmit={submit} className="card inline-form" aria-label="Create a user">
      <h2>Create a user</h2>
      <fieldset disabled={props.disabled} className="plain">
        <Field label="Username" hint="lower-case letters, digits, . _ @ -">
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              required
              autoComplete="off"
              maxLength={100}
              value={username}
              onChange={(event) => setUsername(event.target.value)}
            />
          )}
        </Field>
        <Field label="Password" hint={`at least ${MIN_PASSWORD} characters; tell it to them in person`}>
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              type="password"
              required
              minLength={MIN_PASSWORD}
              autoComplete="new-password"
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
          )}
        </Field>
        <Field label="Email (optional)" hint="their work address, where overdue-task reminders go">
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              type="email"
              autoComplete="off"
              maxLength={254}
              value={email}
              onChange={(event) => setEmail(event.target.value)}
            />
          )}
        </Field>
        <CheckList
          legend="Roles"
          options={available.data ?? []}
          chosen={roles}
          setChosen={setRoles}
          nameAs="strong"
        />
        <ErrorNotice message={create.error} />
        <button type="submit" className="primary" disabled={create.pending}>
          Create user
        </button>
      </fieldset>
    </form>
  );
}
