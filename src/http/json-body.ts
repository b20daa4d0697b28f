// How a JSON request body is read. An empty body with a JSON content type is no body: Fides scripts send
// `Content-Type: application/json` on every call, GETs and DELETEs with nothing to send included
// (docs/migrating-from-fides.md), and Fastify's own parser refuses those with a 400. A route whose schema
// needs a body still refuses the request, with its schema's sentence. Anything else is Fastify's parser,
// with its defaults against prototype poisoning.
import type { FastifyInstance } from 'fastify';

export function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0) {
      done(null, undefined);
      return;
    }
    parseJson(request, String(body), done);
  });
}
