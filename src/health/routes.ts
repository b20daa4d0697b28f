import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { isStoreUnavailable } from '../db/database.ts';
import { ErrorDetail } from '../http/schemas.ts';
import type { Services } from '../services.ts';
import { VERSION } from '../version.ts';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  version: Type.String(),
  database: Type.Object({
    kind: Type.String(),
    reachable: Type.Boolean(),
    error: Type.Optional(Type.String()),
  }),
  queue: Type.Object({ running: Type.Boolean() }),
});

/**
 * Why the check failed, for an unauthenticated caller: the kind of failure and the driver's error code,
 * never the driver's message (it names the database host and port).
 */
function reasonOf(cause: unknown): string {
  const code = (cause as { code?: unknown } | null)?.code;
  const suffix = typeof code === 'string' ? ` (${code})` : '';
  return isStoreUnavailable(cause)
    ? `the database cannot be reached${suffix}`
    : `the database check failed${suffix}`;
}

export function healthRoutes({ db, queue }: Services): FastifyPluginAsync {
  return async (app) => {
    app.get(
      '/health',
      {
        schema: {
          tags: ['operations'],
          summary: 'Whether the store is reachable and the queue runs; 503 when the store is not.',
          response: {
            200: Health,
            503: Type.Union([Health, ErrorDetail], {
              description:
                'The store is unreachable (the health body), or the service is shutting down ({detail}).',
            }),
          },
        },
      },
      async (request, reply) => {
        let error: string | undefined;
        try {
          await db.query('SELECT 1');
        } catch (cause) {
          error = reasonOf(cause);
          request.log.warn({ err: cause }, 'health check: database unavailable');
        }
        const body = {
          status: error ? ('unavailable' as const) : ('ok' as const),
          version: VERSION,
          database: { kind: db.kind, reachable: !error, ...(error ? { error } : {}) },
          queue: { running: queue.running },
        };
        return reply.status(error ? 503 : 200).send(body);
      },
    );
  };
}
