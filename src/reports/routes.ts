// HTTP face of the records: the CSV of requests (streamed) and the year's figures, both with
// privacy-request:read. Shapes and status codes only; the rules are in records.ts.
import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { invalid } from '../errors.ts';
import { managementErrors, security } from '../http/schemas.ts';
import type { Services } from '../services.ts';
import { named } from '../validation/schema-names.ts';
import { reportPeriod, requestRecordsCsv, yearMetrics } from './records.ts';

const tags = ['records'];
const DATE_OR_TIME = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,6})?)?(Z|[+-]\\d{2}:\\d{2}))?$';
const DateOrTime = Type.String({
  pattern: DATE_OR_TIME,
  maxLength: 40,
  description: 'A date (2026-03-31, the whole day, UTC) or a date-time with its offset.',
});

const ReportQuery = Type.Object(
  {
    from: Type.Optional(DateOrTime),
    to: Type.Optional(DateOrTime),
  },
  { additionalProperties: false },
);

const MetricsQuery = Type.Object(
  { year: Type.Integer({ minimum: 2000, maximum: 9999 }) },
  { additionalProperties: false },
);

const YearMetricsView = named(
  'RequestMetrics',
  Type.Object({
    year: Type.Integer(),
    by_action_type: Type.Array(
      Type.Object({
        action_type: Type.String({
          description:
            'The weightiest action type of the policy’s rules (erasure, access, update, consent: GET /v1/action-type), or other.',
        }),
        received: Type.Integer(),
        complied: Type.Integer({ description: 'Completed, in whole or in part.' }),
        denied: Type.Integer(),
        median_days: Type.Union([Type.Number(), Type.Null()]),
        mean_days: Type.Union([Type.Number(), Type.Null()]),
      }),
    ),
  }),
);

export function reportRoutes(services: Services): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Querystring: Type.Static<typeof ReportQuery> }>(
      '/report/requests.csv',
      {
        onRequest: app.authorize('privacy-request:read'),
        schema: {
          tags,
          summary:
            'The records of requests received from `from` (default: 24 months before `to`) to `to` (default: now), as CSV, one row per request and no identity value (CCPA regs §7101).',
          security,
          querystring: ReportQuery,
          response: {
            200: { description: 'CSV, header first.', content: { 'text/csv': { schema: Type.String() } } },
            ...managementErrors,
          },
        },
      },
      async (request, reply) => {
        const { from, to } = reportPeriod(request.query.from, request.query.to);
        if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()))
          throw invalid('from and to must be real dates.');
        if (from >= to) throw invalid('from must be before to.');
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="privacy-requests.csv"')
          .send(Readable.from(requestRecordsCsv(services.db, from, to)));
      },
    );

    app.get<{ Querystring: Type.Static<typeof MetricsQuery> }>(
      '/report/metrics',
      {
        onRequest: app.authorize('privacy-request:read'),
        schema: {
          tags,
          summary:
            'The figures of the requests received in a calendar year (UTC), per action type: received, complied, denied, median and mean days to respond (CCPA regs §7102).',
          security,
          querystring: MetricsQuery,
          response: { 200: YearMetricsView, ...managementErrors },
        },
      },
      async (request) => yearMetrics(services.db, request.query.year),
    );
  };
}
