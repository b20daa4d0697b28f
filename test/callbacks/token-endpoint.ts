// A real OAuth 2.0 token endpoint on 127.0.0.1 for the target-OAuth tests: it records every request it
// receives (headers and decoded form) and answers according to the path, including the faulty answers a
// token server can give (errors, garbage, redirects, silence, floods).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TokenCall {
  path: string;
  /** The client id and secret from the Basic header, form-decoded as RFC 6749 2.3.1 prescribes. */
  basic: { clientId: string; clientSecret: string } | undefined;
  contentType: string | undefined;
  form: Record<string, string>;
}

export interface TokenEndpoint {
  origin: string;
  calls: TokenCall[];
  /** Calls made with one client id (each test uses its own). */
  callsFor(clientId: string): TokenCall[];
  close(): Promise<void>;
}

const formDecode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));

function basicCredentials(header: string | undefined): TokenCall['basic'] {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 0) return undefined;
  return {
    clientId: formDecode(decoded.slice(0, separator)),
    clientSecret: formDecode(decoded.slice(separator + 1)),
  };
}

function json(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

export async function startTokenEndpoint(): Promise<TokenEndpoint> {
  let issued = 0;
  const calls: TokenCall[] = [];
  const answer = (request: IncomingMessage, response: ServerResponse, call: TokenCall) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    // Tokens name the scope they were issued for; spaces are not allowed in a bearer token.
    const token = () => `token-${++issued}-${(call.form.scope ?? 'noscope').replaceAll(' ', '+')}`;
    switch (url.pathname) {
      case '/token':
        return json(response, 200, {
          access_token: token(),
          token_type: 'Bearer',
          expires_in: Number(url.searchParams.get('expires_in') ?? 3600),
        });
      case '/token-without-lifetime':
        return json(response, 200, { access_token: token(), token_type: 'bearer' });
      case '/token-lifetime-as-text':
        return json(response, 200, { access_token: token(), token_type: 'bearer', expires_in: '120' });
      case '/server-error':
        return json(response, 500, {
          error: 'server_error',
          error_description: `cannot serve ${call.form.client_secret ?? ''}`,
        });
      case '/refused':
        return json(response, 401, { error: 'invalid_client', error_description: 'no such client' });
      case '/not-json':
        response.writeHead(200, { 'content-type': 'application/json' });
        return response.end('{"access_token": "half');
      case '/no-access-token':
        return json(response, 200, { token_type: 'bearer', expires_in: 60 });
      case '/not-bearer':
        return json(response, 200, { access_token: token(), token_type: 'mac', expires_in: 60 });
      case '/negative-lifetime':
        return json(response, 200, { access_token: token(), token_type: 'bearer', expires_in: -5 });
      case '/unsafe-token':
        return json(response, 200, { access_token: 'line\r\nX-Injected: yes', token_type: 'bearer' });
      case '/redirect':
        response.writeHead(302, { location: '/token' });
        return response.end();
      case '/flood':
        response.writeHead(200, { 'content-type': 'application/json' });
        return response.end(`{"access_token": "${'a'.repeat(100 * 1024)}"}`);
      case '/silent':
        return undefined;
      default:
        return json(response, 404, { error: 'not_found' });
    }
  };

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
      const call: TokenCall = {
        path,
        basic: basicCredentials(request.headers.authorization),
        contentType: request.headers['content-type'],
        form: Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))),
      };
      calls.push(call);
      answer(request, response, call);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    calls,
    callsFor: (clientId) => calls.filter((call) => call.form.client_id === clientId),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
