// A real OpenID Connect provider (oidc-provider) on 127.0.0.1 for the sign-in tests. Its one interaction
// signs in whoever the test named last (`signInAs`) and grants the asked scopes, so that a test drives the
// whole browser flow over HTTP (or in Chromium) without a login form. Accounts carry the groups the test
// gives them; ID tokens carry their claims (conformIdTokenClaims off, as Okta and Entra ID send groups).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  sub: string;
  preferred_username?: string;
  email?: string;
  name?: string;
  groups?: string[];
}

export interface OpenIdProvider {
  issuer: string;
  /** Registers a Lethe's client with its redirect URI (once that Lethe listens); earlier ones stay. */
  register(client: { clientId: string; clientSecret: string; redirectUri: string }): void;
  /** The account the next sign-in signs in. */
  signInAs(account: TestAccount): void;
  close(): Promise<void>;
}

export async function startOpenIdProvider(): Promise<OpenIdProvider> {
  const accounts = new Map<string, TestAccount>();
  let next: TestAccount | undefined;
  const clients: {
    client_id: string;
    client_secret: string;
    redirect_uris: string[];
    grant_types: string[];
    response_types: ['code'];
  }[] = [];
  let handler: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  let provider: Provider | undefined;
  const server: Server = createServer((request, response) => {
    if (!provider || !handler) {
      response.statusCode = 503;
      response.end('provider not configured yet');
      return;
    }
    if (request.url?.startsWith('/interaction/')) {
      void interact(provider, request, response).catch((error: unknown) => {
        response.statusCode = 500;
        response.end(String(error));
      });
      return;
    }
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function interact(op: Provider, request: IncomingMessage, response: ServerResponse) {
    const details = await op.interactionDetails(request, response);
    const account = next;
    if (!account) throw new Error('the test named no account to sign in');
    accounts.set(account.sub, account);
    const grant = new op.Grant({ accountId: account.sub, clientId: details.params.client_id as string });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await op.interactionFinished(
      request,
      response,
      { login: { accountId: account.sub }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  return {
    issuer,
    register(client) {
      clients.push({
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: [client.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      });
      provider = new Provider(issuer, {
        clients,
        pkce: { required: () => true },
        conformIdTokenClaims: false,
        claims: {
          openid: ['sub'],
          email: ['email', 'email_verified'],
          profile: ['name', 'preferred_username'],
          groups: ['groups'],
        },
        scopes: ['openid', 'email', 'profile', 'groups'],
        features: { devInteractions: { enabled: false } },
        interactions: { url: (_context, interaction) => `/interaction/${interaction.uid}` },
        cookies: { keys: ['test-provider-cookie-key-0123456789'] },
        ttl: { IdToken: 3600, AccessToken: 3600, Interaction: 600, Session: 600, Grant: 600 },
        async findAccount(_context, id) {
          const account = accounts.get(id);
          if (!account) return undefined;
          return {
            accountId: id,
            claims: async () => ({ ...account, email_verified: account.email !== undefined }),
          };
        },
      });
      handler = provider.callback();
    },
    signInAs(account) {
      next = account;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
