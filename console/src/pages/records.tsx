// The records of requests (CCPA regs §7101, §7102; docs/deadlines.md): the year's figures per CCPA category
// (know, delete, correct, opt_out, limit) from GET /v1/report/metrics, for every jurisdiction or one, drawn
// as a small bar chart (received, complied, denied) with the same numbers in a table for screen readers and
// exact reading (unverifiable closures and operator cancels apart), and the CSV of a period from
// GET /v1/report/requests.csv.
import { type FormEvent, useState } from 'react';
import { answer } from '../api.ts';
import { Empty, ErrorNotice, Field, Loading, PageHeader } from '../components.tsx';
import { useAction, useResource } from '../hooks.ts';
import { useSession } from '../session.tsx';
import type { Ok } from '../schema.ts';

type Figures = Ok<'/v1/report/metrics', 'get'>['by_category'][number];

const SERIES = [
  { key: 'received', label: 'Received', color: '#1d4ed8' },
  { key: 'complied', label: 'Complied', color: '#15803d' },
  { key: 'denied', label: 'Denied', color: '#b91c1c' },
] as const;

const BAR = 18;
const GAP = 4;
const LABEL_WIDTH = 90;
const CHART_WIDTH = 420;

/** One group of three horizontal bars per category, scaled to the largest figure. */
function FiguresChart(props: { rows: Figures[] }) {
  const largest = Math.max(1, ...props.rows.flatMap((row) => SERIES.map((series) => row[series.key])));
  const groupHeight = SERIES.length * (BAR + GAP) + 12;
  const height = props.rows.length * groupHeight;
  const scale = (value: number) => (value / largest) * (CHART_WIDTH - LABEL_WIDTH - 40);
  return (
    <figure className="records-chart">
      <svg
        width={CHART_WIDTH}
        height={height}
        viewBox={`0 0 ${CHART_WIDTH} ${height}`}
        role="img"
        aria-label="Requests received, complied with and denied, per CCPA category"
      >
        {props.rows.map((row, group) => (
          <g key={row.category} transform={`translate(0, ${group * groupHeight})`}>
            <text x={0} y={BAR + 4} fontSize="13" fontWeight="600">
              {row.category}
            </text>
            {SERIES.map((series, index) => (
              <g key={series.key} transform={`translate(${LABEL_WIDTH}, ${index * (BAR + GAP)})`}>
                <rect width={Math.max(1, scale(row[series.key]))} height={BAR} fill={series.color} />
                <text x={scale(row[series.key]) + 6} y={BAR - 5} fontSize="12">
                  {row[series.key]}
                </text>
              </g>
            ))}
          </g>
        ))}
      </svg>
      <figcaption className="records-legend">
        {SERIES.map((series) => (
          <span key={series.key}>
            <span className="swatch" style={{ background: series.color }} aria-hidden="true" /> {series.label}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

const days = (value: number | null) => (value === null ? '—' : `${value} d`);

export function RecordsPage() {
  const { api } = useSession();
  const [year, setYear] = useState(new Date().getUTCFullYear());
  const [jurisdiction, setJurisdiction] = useState('');
  const jurisdictions = useResource(() => answer(api.GET('/v1/jurisdiction')), 'jurisdictions');
  const [from, setFrom] = useState(`${new Date().getUTCFullYear()}-01-01`);
  const [to, setTo] = useState(new Date().toISOString().slice(0, 10));
  const metrics = useResource(
    () =>
      answer(
        api.GET('/v1/report/metrics', {
          params: { query: jurisdiction ? { year, jurisdiction } : { year } },
        }),
      ),
    `metrics/${year}/${jurisdiction}`,
  );
  const download = useAction();

  async function downloadCsv(event: FormEvent) {
    event.preventDefault();
    await download.run(async () => {
      const csv = await answer(
        api.GET('/v1/report/requests.csv', { params: { query: { from, to } }, parseAs: 'blob' }),
      );
      const url = URL.createObjectURL(csv as Blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = `privacy-requests-${from}-${to}.csv`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    });
  }

  const rows = metrics.data?.by_category ?? [];
  const none = rows.every((row) => row.received === 0);
  return (
    <>
      <PageHeader title="Records" />
      <p className="hint">
        What the CCPA regulations ask a business to keep: every request for 24 months (§7101) and the year’s
        figures (§7102). No identity value is in either.
      </p>
      <section aria-labelledby="figures-heading">
        <h2 id="figures-heading">
          Figures of {year}
          {jurisdiction ? ` (${jurisdiction})` : ''}
        </h2>
        <Field label="Year">
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              type="number"
              min={2000}
              max={9999}
              value={year}
              onChange={(event) => {
                const next = Number(event.target.value);
                if (Number.isInteger(next) && next >= 2000 && next <= 9999) setYear(next);
              }}
            />
          )}
        </Field>
        <Field label="Jurisdiction" hint="US-CA for California's §7102 figures">
          {(id, describedBy) => (
            <select
              id={id}
              aria-describedby={describedBy}
              value={jurisdiction}
              onChange={(event) => setJurisdiction(event.target.value)}
            >
              <option value="">All</option>
              {(jurisdictions.data ?? []).map((rule) => (
                <option key={rule.code} value={rule.code}>
                  {rule.code} — {rule.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <ErrorNotice message={metrics.error} />
        {metrics.loading && !metrics.data ? <Loading what="the figures" /> : null}
        {metrics.data && none ? <Empty>No request was received in {year}.</Empty> : null}
        {metrics.data && !none ? (
          <>
            <FiguresChart rows={rows} />
            <table className="records-table">
              <thead>
                <tr>
                  <th scope="col">Category</th>
                  <th scope="col">Received</th>
                  <th scope="col">Complied</th>
                  <th scope="col">Denied</th>
                  <th scope="col">Closed unverifiable</th>
                  <th scope="col">Canceled by an operator</th>
                  <th scope="col">Median days</th>
                  <th scope="col">Mean days</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.category}>
                    <th scope="row">{row.category}</th>
                    <td>{row.received}</td>
                    <td>{row.complied}</td>
                    <td>{row.denied}</td>
                    <td>{row.closed_unverifiable}</td>
                    <td>{row.operator_canceled}</td>
                    <td>{days(row.median_days)}</td>
                    <td>{days(row.mean_days)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ) : null}
      </section>
      <section aria-labelledby="csv-heading">
        <h2 id="csv-heading">Requests as CSV</h2>
        <form onSubmit={downloadCsv} className="inline-form">
          <Field label="From">
            {(id) => (
              <input id={id} type="date" required value={from} onChange={(e) => setFrom(e.target.value)} />
            )}
          </Field>
          <Field label="To (included)">
            {(id) => (
              <input id={id} type="date" required value={to} onChange={(e) => setTo(e.target.value)} />
            )}
          </Field>
          <button type="submit" disabled={download.pending}>
            Download CSV
          </button>
        </form>
        <ErrorNotice message={download.error} />
      </section>
    </>
  );
}
