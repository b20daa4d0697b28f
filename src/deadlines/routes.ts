// HTTP face of the built-in jurisdictions: the rules of src/deadlines/jurisdictions.ts, as the API lists
// them (periods as response_days or response_months, and so on).
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { managementErrors, security } from '../http/schemas.ts';
import { named } from '../validation/schema-names.ts';
import { JURISDICTIONS, type Jurisdiction, type Period } from './jurisdictions.ts';

const Days = Type.Optional(Type.Integer({ minimum: 1 }));

export const JurisdictionView = named(
  'Jurisdiction',
  Type.Object({
    code: Type.String({
      description:
        'EU, EEA, UK, CH, BR, or an ISO 3166-2 subdivision with its own law such as US-CA or CA-QC.',
    }),
    name: Type.String(),
    citation: Type.String({ description: 'The sections the rule comes from.' }),
    time_zone: Type.String({
      description:
        'IANA time zone whose local days the periods count, unless the location names its own; LETHE_TIME_ZONE, when set, overrides both (docs/deadlines.md).',
    }),
    response_days: Days,
    response_months: Days,
    extension_days: Days,
    extension_months: Days,
    acknowledge_business_days: Days,
    appeal_days: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Days after a denial during which it may be appealed.' }),
    ),
    appeal_response_days: Days,
    judicial_remedy: Type.Boolean({ description: 'A refusal also names the right to a court remedy.' }),
    authority: Type.Object({ name: Type.String(), url: Type.String() }),
  }),
);

function periodFields(prefix: string, period: Period): Record<string, number> {
  return 'months' in period ? { [`${prefix}_months`]: period.months } : { [`${prefix}_days`]: period.days };
}

export function toJurisdictionView(jurisdiction: Jurisdiction) {
  return {
    code: jurisdiction.code,
    name: jurisdiction.name,
    citation: jurisdiction.citation,
    time_zone: jurisdiction.timeZone,
    ...periodFields('response', jurisdiction.response),
    ...(jurisdiction.extension ? periodFields('extension', jurisdiction.extension) : {}),
    ...(jurisdiction.acknowledgeBusinessDays === undefined
      ? {}
      : { acknowledge_business_days: jurisdiction.acknowledgeBusinessDays }),
    ...(jurisdiction.appealDays === undefined ? {} : { appeal_days: jurisdiction.appealDays }),
    ...(jurisdiction.appealResponseDays === undefined
      ? {}
      : { appeal_response_days: jurisdiction.appealResponseDays }),
    judicial_remedy: jurisdiction.judicialRemedy === true,
    authority: jurisdiction.authority,
  };
}

export function jurisdictionRoutes(): FastifyPluginAsync {
  return async (app) => {
    app.get(
      '/jurisdiction',
      {
        // Public law, no secret: any operator's token reads it (the console's policy form lists it).
        onRequest: app.authorize(),
        schema: {
          tags: ['privacy requests'],
          summary:
            'The built-in jurisdictions whose deadlines Lethe keeps: time to answer, extension, acknowledgement, appeal and the authority to complain to.',
          security,
          response: { 200: Type.Array(JurisdictionView), ...managementErrors },
        },
      },
      async () => JURISDICTIONS.map(toJurisdictionView),
    );
  };
}
