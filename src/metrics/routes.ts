// GET /metrics, the Prometheus scrape endpoint. Who may read it: with LETHE_METRICS_TOKEN set, any caller
// presenting `Authorization: Bearer <that token>` (loopback included, so a token cannot be bypassed by a
// proxy on the same host); without it, loopback callers only, and every other address is refused with a
// sentence saying to set the token. A wrong token counts as a failed authentication of the caller's
// address like every other one (src/rate-limits/address-throttle.ts). The token is never logged nor echoed.
// A reverse proxy on the same host connects from loopback: a request carrying X-Forwarded-For, Forwarded
// or X-Real-IP is therefore loopback only when its peer is one LETHE_TRUST_PROXY lists and the client
// address Lethe derives from X-Forwarded-For is loopback itself (a trusted proxy sending only Forwarded or
// X-Real-IP, which Lethe does not read, is not believed to forward a loopback client).
import { createHash, timingSafeEqual } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { bearerToken } from '../http/authorize.ts';
import { ErrorDetail } from '../http/schemas.ts';
import { forbidden, unauthorized } from '../errors.ts';
import type { Config } from '../config.ts';
import type { Metrics } from './metrics.ts';

/** 127.0.0.0/8, ::1 and IPv4-mapped loopback. */
export function isLoopbackAddress(ip: string): boolean {
  const address = ip.toLowerCase().replace(/^::ffff:/, '');
  if (isIP(address) === 4) return address.startsWith('127.');
  return address === '::1';
}

const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'] as const;

/** The addresses and CIDRs of LETHE_TRUST_PROXY (validated by config.ts), as one matcher. */
function trustedPeers(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

function isTrusted(list: BlockList, ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  const address = mapped ?? ip;
  return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/** Whether the caller is on this host, forwarding headers judged as the module header says. */
export function isLoopbackCaller(request: FastifyRequest, trusted: BlockList): boolean {
  if (!isLoopbackAddress(request.ip)) return false;
  const forwarded = FORWARDING_HEADERS.filter((name) => request.headers[name] !== undefined);
  if (forwarded.length === 0) return true;
  const peer = request.socket.remoteAddress ?? '';
  return isTrusted(trusted, peer) && request.headers['x-forwarded-for'] !== undefined;
}

function sameToken(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

export function metricsRoutes({ config, metrics }: { config: Config; metrics: Metrics }): FastifyPluginAsync {
  const trusted = trustedPeers(config.trustProxy);
  return async (app) => {
    app.get(
      '/metrics',
      {
        onRequest: async (request, reply) => {
          const expected = config.metricsToken;
          if (expected === undefined) {
            if (!isLoopbackCaller(request, trusted))
              throw forbidden(
                '/metrics answers loopback callers only (a request forwarded by a proxy is not one); set LETHE_METRICS_TOKEN to scrape it from another address.',
              );
            return;
          }
          await app.addressThrottle.assertNotBlocked(request, reply);
          const presented = bearerToken(request);
          if (presented === undefined || !sameToken(presented, expected)) {
            reply.header('www-authenticate', 'Bearer');
            throw await app.addressThrottle.chargeFailure(
              request,
              reply,
              unauthorized('/metrics needs Authorization: Bearer with the LETHE_METRICS_TOKEN value.'),
            );
          }
        },
        schema: {
          tags: ['operations'],
          summary:
            'Prometheus metrics (text format 0.0.4). Open to loopback callers; with LETHE_METRICS_TOKEN set, it needs Authorization: Bearer <token>.',
          security: [{ metricsToken: [] }],
          response: {
            200: {
              description:
                'The metrics in the Prometheus text exposition format (text/plain; version=0.0.4).',
              content: { 'text/plain': { schema: Type.String() } },
            },
            401: ErrorDetail,
            403: ErrorDetail,
            429: ErrorDetail,
          },
        },
      },
      async (_request, reply) => {
        const body = await metrics.render();
        reply.type(metrics.contentType);
        return body;
      },
    );
  };
}
