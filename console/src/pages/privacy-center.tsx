// The privacy center's settings: the page's title, the organisation's name, and which policies the public
// may request, each with the title, description and identity fields the page shows. "Publish the default
// policies" fills in the two policies every installation starts with. Each text the public reads can be
// given in other languages as JSON ({"de": {"title": "…"}}); the server names an unknown language or key.
import { type FormEvent, useState } from 'react';
import { ErrorNotice, Field, Loading, PageHeader, SuccessNotice, TranslationsField } from '../components.tsx';
import { useAction, useResource } from '../hooks.ts';
import { useSession } from '../session.tsx';
import { answer } from '../api.ts';
import type { InputRequirement, Policy, PrivacyCenterAction, PrivacyCenterSettings } from '../schema.ts';

const DEFAULT_ACTIONS: PrivacyCenterAction[] = [
  {
    policy_key: 'default_access_policy',
    title: 'Get a copy of my data',
    description: 'We email you a link to download the personal data we hold about you.',
    identity_inputs: { email: 'required' },
  },
  {
    policy_key: 'default_erasure_policy',
    title: 'Erase my data',
    description: 'We erase the personal data we hold about you and confirm it by email.',
    identity_inputs: { email: 'required' },
  },
];

type Requirement = InputRequirement | 'no';
function RequirementSelect(props: {
  label: string;
  value: Requirement;
  onChange: (value: Requirement) => void;
}) {
  return (
    <Field label={props.label}>
      {(id) => (
        <select
          id={id}
          value={props.value}
          onChange={(event) => props.onChange(event.target.value as Requirement)}
        >
          <option value="required">Required</option>
          <option value="optional">Optional</option>
          <option value="no">Not asked</option>
        </select>
      )}
    </Field>
  );
}

function ActionEditor(props: {
  policy: Policy;
  action: PrivacyCenterAction | undefined;
  onChange: (action: PrivacyCenterAction | undefined) => void;
}) {
  const { policy, action } = props;
  const draft: PrivacyCenterAction = action ?? {
    policy_key: policy.key,
    title: policy.name,
    description: '',
    identity_inputs: { email: 'required' },
  };
  const setInput = (name: 'email' | 'phone_number', value: Requirement) => {
    const inputs = { ...draft.identity_inputs };
    if (value === 'no') delete inputs[name];
    else inputs[name] = value;
    props.onChange({ ...draft, identity_inputs: inputs });
  };
  return (
    <fieldset className="card">
      <legend>
        <code>{policy.key}</code> — {policy.name}
      </legend>
      <label className="check">
        <input
          type="checkbox"
          checked={action !== undefined}
          onChange={(event) => props.onChange(event.target.checked ? draft : undefined)}
        />{' '}
        Publish in the privacy center
      </label>
      {action ? (
        <>
          <Field label="Title" hint="what the public sees, for example Get a copy of my data">
            {(id, describedBy) => (
              <input
                id={id}
                aria-describedby={describedBy}
                required
                maxLength={200}
                value={action.title}
                onChange={(event) => props.onChange({ ...action, title: event.target.value })}
              />
            )}
          </Field>
          <Field label="Description">
            {(id) => (
              <textarea
                id={id}
                rows={2}
                maxLength={2000}
                value={action.description}
                onChange={(event) => props.onChange({ ...action, description: event.target.value })}
              />
            )}
          </Field>
          <TranslationsField
            label="Title and description in other languages"
            example={'{"de": {"title": "Kopie meiner Daten", "description": "…"}}'}
            value={action.translations}
            onChange={(translations) => props.onChange({ ...action, translations })}
          />
          <RequirementSelect
            label="Email address"
            value={action.identity_inputs.email ?? 'no'}
            onChange={(value) => setInput('email', value)}
          />
          <RequirementSelect
            label="Phone number"
            value={action.identity_inputs.phone_number ?? 'no'}
            onChange={(value) => setInput('phone_number', value)}
          />
        </>
      ) : null}
    </fieldset>
  );
}

function SettingsForm(props: {
  settings: PrivacyCenterSettings;
  policies: Policy[];
  onSaved: () => Promise<void>;
}) {
  const { api } = useSession();
  const [draft, setDraft] = useState<PrivacyCenterSettings>(props.settings);
  const [saved, setSaved] = useState('');
  const save = useAction();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved('');
    if (await save.run(() => answer(api.PUT('/v1/privacy-center', { body: draft })))) {
      setSaved(`Saved: ${draft.actions.length} action(s) published.`);
      await props.onSaved();
    }
  }

  const actionOf = (key: string) => draft.actions.find((action) => action.policy_key === key);
  const setAction = (policy: Policy, action: PrivacyCenterAction | undefined) => {
    const others = draft.actions.filter((candidate) => candidate.policy_key !== policy.key);
    setDraft({ ...draft, actions: action ? [...others, action] : others });
  };
  const known = new Set(props.policies.map((policy) => policy.key));
  const defaults = DEFAULT_ACTIONS.filter((action) => known.has(action.policy_key));

  return (
    <form onSubmit={submit}>
      <p>
        The public page is at <a href="/privacy-center">/privacy-center</a>. Only the policies published here
        can be requested there.
      </p>
      {defaults.length > 0 ? (
        <p>
          <button
            type="button"
            onClick={() =>
              setDraft({
                ...draft,
                actions: [
                  ...draft.actions.filter(
                    (action) => !defaults.some((d) => d.policy_key === action.policy_key),
                  ),
                  ...defaults,
                ],
              })
            }
          >
            Publish the default policies
          </button>
        </p>
      ) : null}
      <Field label="Page title">
        {(id) => (
          <input
            id={id}
            required
            maxLength={200}
            value={draft.title}
            onChange={(event) => setDraft({ ...draft, title: event.target.value })}
          />
        )}
      </Field>
      <TranslationsField
        label="Page title in other languages"
        example={'{"de": {"title": "Datenschutzcenter"}}'}
        value={draft.translations}
        onChange={(translations) => setDraft({ ...draft, translations })}
      />
      <Field label="Organisation name" hint="signs every message to data subjects">
        {(id, describedBy) => (
          <input
            id={id}
            aria-describedby={describedBy}
            required
            maxLength={200}
            value={draft.organization_name}
            onChange={(event) => setDraft({ ...draft, organization_name: event.target.value })}
          />
        )}
      </Field>
      <h2>Actions</h2>
      {props.policies.map((policy) => (
        <ActionEditor
          key={policy.key}
          policy={policy}
          action={actionOf(policy.key)}
          onChange={(action) => setAction(policy, action)}
        />
      ))}
      <ErrorNotice message={save.error} />
      <SuccessNotice message={saved} />
      <div className="buttons">
        <button type="submit" className="primary" disabled={save.pending}>
          Save the privacy center
        </button>
      </div>
    </form>
  );
}

export function PrivacyCenterPage() {
  const { api } = useSession();
  const settings = useResource(() => answer(api.GET('/v1/privacy-center')), 'privacy-center');
  const policies = useResource(
    () => answer(api.GET('/v1/dsr/policy', { params: { query: { size: 1000 } } })),
    'policies',
  );
  return (
    <>
      <PageHeader title="Privacy center" />
      <ErrorNotice message={settings.error || policies.error} />
      {settings.data && policies.data ? (
        <SettingsForm settings={settings.data} policies={policies.data.items} onSaved={settings.reload} />
      ) : (
        <Loading what="the privacy center settings" />
      )}
    </>
  );
}
