// One datastore's entities, read only (GET /v1/datastore/{name}/entity, scope datastore:read): 25 a page,
// oldest first, each with its table, parents and attribute names, every value masked. "Reveal" shows one
// attribute's value, "Reveal all" the entity's (GET …/entity/{id}): the service writes an audit entry
// naming who and which entity before it answers, and the page keeps revealed values in its state only,
// dropped on "Hide" or when the page is left. Nothing here changes subject data.
import { useState } from 'react';
import { Link } from 'wouter';
import { answer } from '../api.ts';
import { Empty, ErrorNotice, Loading, PageHeader, Pager } from '../components.tsx';
import { formatDateTime } from '../format.ts';
import { useAction, useResource } from '../hooks.ts';
import { useSession } from '../session.tsx';
import type { BrowsedEntity } from '../schema.ts';

const PAGE_SIZE = 25;
const MASK = '••••••';

type Revealed = Record<string, Record<string, string | null>>;

export function DatastoreEntitiesPage(props: { datastore: string }) {
  const { api } = useSession();
  const [page, setPage] = useState(1);
  const [revealed, setRevealed] = useState<Revealed>({});
  const reveal = useAction();
  const entities = useResource(
    () =>
      answer(
        api.GET('/v1/datastore/{name}/entity', {
          params: { path: { name: props.datastore }, query: { page, size: PAGE_SIZE } },
        }),
      ),
    `${props.datastore}/${page}`,
  );

  async function show(entityId: string, attribute?: string) {
    await reveal.run(async () => {
      const entity = await answer(
        api.GET('/v1/datastore/{name}/entity/{id}', {
          params: { path: { name: props.datastore, id: entityId }, query: { attribute } },
        }),
      );
      setRevealed((current) => {
        const values = { ...current[entityId] };
        for (const item of entity.attributes) values[item.name] = item.value;
        for (const file of entity.files) values[file.name] = `${file.file_name} (${file.content_type})`;
        return { ...current, [entityId]: values };
      });
    });
  }

  function hide(entityId: string) {
    setRevealed((current) => {
      const next = { ...current };
      delete next[entityId];
      return next;
    });
  }

  return (
    <>
      <PageHeader title={`Entities of ${props.datastore}`}>
        <Link href="/datastores">Back to datastores</Link>
      </PageHeader>
      <p className="hint">
        Read only. Values are masked; revealing one is recorded in the audit log with your name and the entity
        (never the value).
      </p>
      <ErrorNotice message={entities.error || reveal.error} />
      {entities.loading && !entities.data ? (
        <Loading what="entities" />
      ) : entities.data && entities.data.items.length === 0 ? (
        <Empty>This datastore holds no entity.</Empty>
      ) : entities.data ? (
        <>
          <table className="responsive entities">
            <thead>
              <tr>
                <th scope="col">Entity</th>
                <th scope="col">Table</th>
                <th scope="col">Created</th>
                <th scope="col">Parents</th>
                <th scope="col">Attributes</th>
              </tr>
            </thead>
            <tbody>
              {entities.data.items.map((entity) => (
                <EntityRow
                  key={entity.id}
                  entity={entity}
                  values={revealed[entity.id]}
                  pending={reveal.pending}
                  onReveal={(attribute) => void show(entity.id, attribute)}
                  onHide={() => hide(entity.id)}
                />
              ))}
            </tbody>
          </table>
          <Pager page={page} size={PAGE_SIZE} total={entities.data.total} onPage={setPage} />
          {entities.data.total_capped ? (
            <p className="hint">Browsing shows the first entities only; find others by id or identity.</p>
          ) : null}
        </>
      ) : null}
    </>
  );
}

function EntityRow(props: {
  entity: BrowsedEntity;
  values: Record<string, string | null> | undefined;
  pending: boolean;
  onReveal: (attribute?: string) => void;
  onHide: () => void;
}) {
  const { entity, values } = props;
  const names = [
    ...entity.attributes.map((attribute) => ({ name: attribute.name, empty: !attribute.has_value })),
    ...entity.files.map((file) => ({ name: file.name, empty: false })),
  ];
  return (
    <tr>
      <td data-label="Entity">
        <code>{entity.id}</code>
      </td>
      <td data-label="Table">{entity.name}</td>
      <td data-label="Created" className="when">
        {formatDateTime(entity.created_at)}
      </td>
      <td data-label="Parents" className="ids">
        {entity.parents.length ? entity.parents.join(', ') : '—'}
      </td>
      <td data-label="Attributes">
        <dl className="key-values">
          {names.map(({ name, empty }) => {
            const shown = values !== undefined && name in values;
            return (
              <div key={name}>
                <dt>{name}</dt>
                <dd>
                  {empty ? (
                    <span className="hint">no value</span>
                  ) : shown ? (
                    <span className="revealed">{values[name] ?? 'no value'}</span>
                  ) : (
                    <>
                      <span aria-label="masked">{MASK}</span>{' '}
                      <button
                        type="button"
                        className="small"
                        disabled={props.pending}
                        aria-label={`Reveal ${name} of ${entity.id}`}
                        onClick={() => props.onReveal(name)}
                      >
                        Reveal
                      </button>
                    </>
                  )}
                </dd>
              </div>
            );
          })}
        </dl>
        {values === undefined ? (
          <button
            type="button"
            className="small"
            disabled={props.pending || names.length === 0}
            aria-label={`Reveal all values of ${entity.id}`}
            onClick={() => props.onReveal()}
          >
            Reveal all
          </button>
        ) : (
          <button
            type="button"
            className="small"
            onClick={props.onHide}
            aria-label={`Hide values of ${entity.id}`}
          >
            Hide
          </button>
        )}
      </td>
    </tr>
  );
}
