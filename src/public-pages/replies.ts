// How a public page is answered over HTTP (layout.ts renders it): every answer of a page's routes carries
// PAGE_CSP, is never cached, and sends its referrer to this site only (a form posted from the page then
// carries its origin, which cross-site.ts checks: no-referrer would make it "null"). A domain error becomes
// a page with its status; anything else is a fault, left to the error handler.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { DomainError } from '../errors.ts';
import { STATUS_BY_KIND } from '../http/error-handler.ts';
import { PAGE_CSP } from './layout.ts';

/** Registers, in the page routes' plugin, the headers every page's answer carries. */
export function answerAsPublicPages(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('content-security-policy', PAGE_CSP);
    reply.header('cache-control', 'no-store');
    reply.header('referrer-policy', 'same-origin');
    return payload;
  });
}

export function sendPage(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply.status(status).type('text/html; charset=utf-8').send(page);
}

/** The status a domain error's page answers with; any other error is thrown on. */
export function pageStatusOf(error: unknown): number {
  if (error instanceof DomainError) return STATUS_BY_KIND[error.kind];
  throw error;
}
