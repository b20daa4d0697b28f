// The append-only audit log of the subject data store, newest first, paged, filtered by datastore, entity
// id and action. It shows what the API answers: ids, counts and times, never attribute values.
import { type FormEvent, useState } from 'react';
import { Empty, ErrorNotice, Field, Loading, PageHeader, Pager } from '../components.tsx';
import { formatDateTime } from '../format.ts';
import { useResource } from '../hooks.ts';
import { useSession } from '../session.tsx';
import type { Page } from '../api.ts';
import type { AuditEntry } from '../types.ts';

const PAGE_SIZE = 25;

interface Filters {
  datastore: string;
  entity_id: string;
  action: string;
}

const NO_FILTERS: Filters = { datastore: '', entity_id: '', action: '' };

export function AuditLogPage() {
  const { api } = useSession();
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const log = useResource(
    () => api.get<Page<AuditEntry>>('/v1/audit-log', { ...filters, page, size: PAGE_SIZE }),
    JSON.stringify([filters, page]),
  );

  function apply(event: FormEvent) {
    event.preventDefault();
    setPage(1);
    setFilters({
      datastore: draft.datastore.trim(),
      entity_id: draft.entity_id.trim(),
      action: draft.action.trim(),
    });
  }

  const filtered = Object.values(filters).some(Boolean);
  return (
    <>
      <PageHeader title="Audit log" />
      <form className="filters" onSubmit={apply} aria-label="Filter the audit log">
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
        <Field label="Action" hint="for example user.forget or entity.create">
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              value={draft.action}
              onChange={(event) => setDraft({ ...draft, action: event.target.value })}
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
          {filtered ? 'No entry matches these filters.' : 'The audit log is empty: no subject data call yet.'}
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
                  <td data-label="Time">{formatDateTime(entry.at)}</td>
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
                    {Object.keys(entry.details).length ? JSON.stringify(entry.details) : '—'}
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
