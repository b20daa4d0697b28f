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
    code: Type.String({ description: 'EU, EEA, UK or an ISO 3166-2 US state such as US-CA.' }),
    name: Type.String(),
    response_days: Days,
    response_months: Days,
    extension_days: Days,
    extension_months: Days,
    acknowledge_business_days: Days,
    appeal_days: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Days after a denial during which it may be appealed.' }),
    ),
    appeal_response_days: Days,
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
    ...periodFields('response', jurisdiction.response),
    ...periodFields('extension', jurisdiction.extension),
    ...(jurisdiction.acknowledgeBusinessDays === undefined
      ? {}
      : { acknowledge_business_days: jurisdiction.acknowledgeBusinessDays }),
    ...(jurisdiction.appealDays === undefined ? {} : { appeal_days: jurisdiction.appealDays }),
    ...(jurisdiction.appealResponseDays === undefined
      ? {}
      : { appeal_response_days: jurisdiction.appealResponseDays }),
    authority: jurisdiction.authority,
  };
}

export function jurisdictionRoutes(): FastifyPluginAsync {
  return async (app) => {
    app.get(
      '/jurisdiction',
      {
        onRequest: app.authorize('privacy-request:read'),
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
