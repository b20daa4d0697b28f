// The append-only audit log, newest first, paged: configuration changes (who changed which connection,
// policy, webhook, user, client...), reviews of privacy requests and the subject data store's calls.
// Filtered by actor, action family, time, datastore and entity id. It shows what the API answers: ids,
// keys, counts and times, never a secret or an attribute value. Details read as key/value pairs; actions
// follow the API's one naming scheme, `<thing>.<verb>` in kebab-case.
import { type FormEvent, useState } from 'react';
import { Empty, ErrorNotice, Field, Loading, PageHeader, Pager } from '../components.tsx';
import { formatDateTime } from '../format.ts';
import { useResource } from '../hooks.ts';
import { holds, useSession } from '../session.tsx';
import { answer } from '../api.ts';

const PAGE_SIZE = 25;

interface Filters {
  actor: string;
  action: string;
  from: string;
  to: string;
  datastore: string;
  entity_id: string;
}

const NO_FILTERS: Filters = { actor: '', action: '', from: '', to: '', datastore: '', entity_id: '' };

/** The action families the API filters by (`connection` matches every `connection.*`). */
export const ACTION_FAMILIES: { value: string; label: string }[] = [
  { value: 'operator', label: 'Users (operator accounts)' },
  { value: 'client', label: 'Management clients' },
  { value: 'connection', label: 'Connections, secrets, OAuth' },
  { value: 'policy', label: 'Policies and rules' },
  { value: 'webhook', label: 'Webhooks and their order' },
  { value: 'privacy-request', label: 'Privacy requests: reviews and rule runs' },
  { value: 'access-package', label: 'Access package downloads' },
  { value: 'privacy-center', label: 'Privacy center settings' },
  { value: 'datastore', label: 'Datastores' },
  { value: 'api-key', label: 'API keys' },
  { value: 'maintenance', label: 'Maintenance' },
  { value: 'entity', label: 'Subject data: entities' },
  { value: 'attribute', label: 'Subject data: attributes' },
  { value: 'file', label: 'Subject data: files' },
  { value: 'user', label: 'Subject rights (forget, SAR)' },
];

/** One detail's value as text: lists joined, objects as compact JSON, nothing shown as a dash. */
function detailText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.length === 0 ? '—' : value.map(detailText).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** An entry's details as key/value pairs, in the order the API wrote them. */
export function AuditDetails(props: { details: Record<string, unknown> }) {
  const entries = Object.entries(props.details);
  if (entries.length === 0) return <>—</>;
  return (
    <dl className="key-values">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt>{key.replaceAll('_', ' ')}</dt>
          <dd>{detailText(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A datetime-local value (the browser's time zone) as the API's ISO time; empty stays empty. */
function isoTime(local: string): string {
  if (!local) return '';
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

export function AuditLogPage() {
  const { api, info } = useSession();
  const operators = useResource(
    () => (holds(info.scopes, 'user:read') ? answer(api.GET('/v1/user')) : Promise.resolve([])),
    'operators',
  );
  const knownActors = [
    ...(operators.data ?? []).map((operator) => `user:${operator.username}`),
    info.username === null ? `client:${info.client_id}` : `user:${info.username}`,
  ];
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const log = useResource(
    () =>
      answer(
        api.GET('/v1/audit-log', {
          params: {
            query: {
              actor: filters.actor || undefined,
              action: filters.action || undefined,
              datastore: filters.datastore || undefined,
              entity_id: filters.entity_id || undefined,
              from: isoTime(filters.from) || undefined,
              to: isoTime(filters.to) || undefined,
              page,
              size: PAGE_SIZE,
            },
          },
        }),
      ),
    JSON.stringify([filters, page]),
  );

  function apply(event: FormEvent) {
    event.preventDefault();
    setPage(1);
    setFilters({
      ...draft,
      actor: draft.actor.trim(),
      datastore: draft.datastore.trim(),
      entity_id: draft.entity_id.trim(),
    });
  }

  const filtered = Object.values(filters).some(Boolean);
  return (
    <>
      <PageHeader title="Audit log" />
      <form className="filters" onSubmit={apply} aria-label="Filter the audit log">
        <Field label="Actor" hint="user:NAME, client:ID or api-key:ID">
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              list="known-actors"
              value={draft.actor}
              onChange={(event) => setDraft({ ...draft, actor: event.target.value })}
            />
          )}
        </Field>
        <datalist id="known-actors">
          {[...new Set(knownActors)].map((actor) => (
            <option key={actor} value={actor} />
          ))}
        </datalist>
        <Field label="Action">
          {(id) => (
            <select
              id={id}
              value={draft.action}
              onChange={(event) => setDraft({ ...draft, action: event.target.value })}
            >
              <option value="">All actions</option>
              {ACTION_FAMILIES.map((family) => (
                <option key={family.value} value={family.value}>
                  {family.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="From">
          {(id) => (
            <input
              id={id}
              type="datetime-local"
              value={draft.from}
              onChange={(event) => setDraft({ ...draft, from: event.target.value })}
            />
          )}
        </Field>
        <Field label="Until">
          {(id) => (
            <input
              id={id}
              type="datetime-local"
              value={draft.to}
              onChange={(event) => setDraft({ ...draft, to: event.target.value })}
            />
          )}
        </Field>
        <Field label="Datastore">
          {(id) => (
            <input
              id={id}
              value={draft.datastore}
              onChange={(event) => setDraft({ ...draft, datastore: event.target.value })}
            />
          )}
        </Field>
        <Field label="Entity id">
          {(id) => (
            <input
              id={id}
              value={draft.entity_id}
              onChange={(event) => setDraft({ ...draft, entity_id: event.target.value })}
            />
          )}
        </Field>
        <div className="filter-buttons">
          <button type="submit" className="primary">
            Filter
          </button>
          <button
            type="button"
            onClick={() => {
              setDraft(NO_FILTERS);
              setFilters(NO_FILTERS);
              setPage(1);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <ErrorNotice message={log.error} />
      {log.loading && !log.data ? (
        <Loading what="the audit log" />
      ) : log.data && log.data.items.length === 0 ? (
        <Empty>
          {filtered ? 'No entry matches these filters.' : 'The audit log is empty: nothing has changed yet.'}
        </Empty>
      ) : log.data ? (
        <>
          <table className="responsive">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Time</th>
                <th scope="col">Action</th>
                <th scope="col">Datastore</th>
                <th scope="col">Entities</th>
                <th scope="col">Actor</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {log.data.items.map((entry) => (
                <tr key={entry.seq}>
                  <td data-label="#">{entry.seq}</td>
                  <td data-label="Time" className="when">
                    <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
                  </td>
                  <td data-label="Action" className="action">
                    <code>{entry.action}</code>
                  </td>
                  <td data-label="Datastore">{entry.datastore ?? '—'}</td>
                  <td data-label="Entities" className="ids">
                    {entry.entity_ids.length === 0
                      ? '—'
                      : entry.entity_ids.length > 3
                        ? `${entry.entity_ids.slice(0, 3).join(', ')} and ${entry.entity_ids.length - 3} more`
                        : entry.entity_ids.join(', ')}
                  </td>
                  <td data-label="Actor">{entry.actor}</td>
                  <td data-label="Details" className="details">
                    <AuditDetails details={entry.details} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} size={PAGE_SIZE} total={log.data.total} onPage={setPage} />
        </>
      ) : null}
    </>
  );
}
