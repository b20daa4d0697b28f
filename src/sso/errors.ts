// The refusals of an OpenID Connect sign-in, apart from the service that owns its key, so that the routes
// can tell them apart without importing a secret's owner.
export { OidcRefusal, OidcUnavailable } from './oidc-client.ts';

/** A sign-in that ends on a page for the person, never in the console: the reason and an HTTP status. */
export class SignInRefused extends Error {
  override name = 'SignInRefused';
  readonly status: 400 | 403;

  constructor(message: string, status: 400 | 403) {
    super(message);
    this.status = status;
  }
}
