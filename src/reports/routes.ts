// HTTP face of the records: the CSV of requests (streamed) and the year's figures, both with
// privacy-request:read. Shapes and status codes only; the rules are in records.ts.
import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { jurisdictionByCode, unknownJurisdictionMessage } from '../deadlines/jurisdictions.ts';
import { invalid } from '../errors.ts';
import { managementErrors, security } from '../http/schemas.ts';
import type { Services } from '../services.ts';
import { named } from '../validation/schema-names.ts';
import { METRICS_CATEGORIES, reportPeriod, requestRecordsCsv, yearMetrics } from './records.ts';

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
  {
    year: Type.Integer({ minimum: 2000, maximum: 9999 }),
    jurisdiction: Type.Optional(
      Type.String({
        maxLength: 20,
        description:
          'Only the requests under this built-in jurisdiction (GET /v1/jurisdiction), e.g. US-CA; 422 for an unknown code.',
      }),
    ),
  },
  { additionalProperties: false },
);

const Days = Type.Union([Type.Number(), Type.Null()]);

const YearMetricsView = named(
  'RequestMetrics',
  Type.Object({
    year: Type.Integer(),
    jurisdiction: Type.Union([Type.String(), Type.Null()], {
      description: 'The jurisdiction the figures are filtered to, or null for all requests.',
    }),
    by_category: Type.Array(
      Type.Object({
        category: Type.Enum([...METRICS_CATEGORIES, 'other'], {
          description:
            'The CCPA regs §7102 category, from the action registry (GET /v1/action-type records_category): know, delete, correct, opt_out, limit, and other for a policy of no registered action (only when it has requests).',
        }),
        received: Type.Integer(),
        complied: Type.Integer({ description: 'Completed, in whole or in part.' }),
        denied: Type.Integer(),
        closed_unverifiable: Type.Integer({
          description:
            'Canceled because the identity could not be verified (reason code unverifiable: an operator’s, the sweep’s, too many wrong codes), counted apart from denials.',
        }),
        operator_canceled: Type.Integer({
          description: 'Canceled by an operator or an API client (any reason code).',
        }),
        median_days: Days,
        mean_days: Days,
      }),
    ),
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
          .send(Readable.from(requestRecordsCsv(services.db, from, to, services.config.deadlineTimeZone)));
      },
    );

    app.get<{ Querystring: Type.Static<typeof MetricsQuery> }>(
      '/report/metrics',
      {
        onRequest: app.authorize('privacy-request:read'),
        schema: {
          tags,
          summary:
            'The figures of the requests received in a calendar year (UTC), optionally under one jurisdiction, per CCPA category and per action type: received, complied, denied, and apart closed unverifiable and operator cancels; median and mean days to respond (CCPA regs §7102).',
          security,
          querystring: MetricsQuery,
          response: { 200: YearMetricsView, ...managementErrors },
        },
      },
      async (request) => {
        const code = request.query.jurisdiction;
        if (code !== undefined && !jurisdictionByCode(code)) throw invalid(unknownJurisdictionMessage(code));
        return yearMetrics(services.db, request.query.year, jurisdictionByCode(code)?.code ?? null);
      },
    );
  };
}
