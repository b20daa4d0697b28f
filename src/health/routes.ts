import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import type { Services } from '../runtime/services.ts';
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

export function healthRoutes({ db, queue }: Services): FastifyPluginAsync {
  return async (app) => {
    app.get(
      '/health',
      {
        schema: {
          tags: ['operations'],
          summary: 'Whether the store is reachable and the queue runs; 503 when the store is not.',
          response: { 200: Health, 503: Health },
        },
      },
      async (_request, reply) => {
        let error: string | undefined;
        try {
          await db.query('SELECT 1');
        } catch (cause) {
          error = cause instanceof Error ? cause.message : String(cause);
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
