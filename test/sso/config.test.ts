// The identity provider's settings from the environment: parsed, and every bad value refused at start
// with a sentence naming the variable.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

const PROVIDER = {
  LETHE_OIDC_ISSUER: 'https://login.example.com/realms/staff',
  LETHE_OIDC_CLIENT_ID: 'lethe',
  LETHE_OIDC_CLIENT_SECRET: 'secret',
};

describe('identity provider configuration', () => {
  it('reads the provider, the role map (a role or a list) and password sign-in', () => {
    const config = loadConfig({
      ...PROVIDER,
      LETHE_OIDC_ROLE_MAP: '{"privacy-team": "approver", "it-admins": ["owner", "dpo"]}',
      LETHE_OIDC_NAME: 'Keycloak',
      LETHE_PASSWORD_LOGIN: 'false',
    });
    assert.deepEqual(config.oidc?.roleMap, { 'privacy-team': ['approver'], 'it-admins': ['owner', 'dpo'] });
    assert.equal(config.oidc?.rolesClaim, 'groups');
    assert.equal(config.oidc?.scopes, 'openid email profile');
    assert.equal(config.oidc?.name, 'Keycloak');
    assert.equal(config.passwordLogin, false);
    assert.equal(loadConfig({}).oidc, undefined);
    assert.equal(loadConfig({}).passwordLogin, true);
  });

  it('refuses a bad value with a sentence naming the variable', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ LETHE_OIDC_ISSUER: PROVIDER.LETHE_OIDC_ISSUER }, /LETHE_OIDC_ISSUER needs LETHE_OIDC_CLIENT_ID/],
      [{ ...PROVIDER, LETHE_OIDC_ISSUER: 'ftp://example.com' }, /LETHE_OIDC_ISSUER must use https or http/],
      [{ ...PROVIDER, LETHE_OIDC_ROLE_MAP: '{not json' }, /LETHE_OIDC_ROLE_MAP must be JSON/],
      [{ ...PROVIDER, LETHE_OIDC_ROLE_MAP: '["owner"]' }, /LETHE_OIDC_ROLE_MAP must be a JSON object/],
      [{ ...PROVIDER, LETHE_OIDC_ROLE_MAP: '{"team": []}' }, /the group "team" must map to a role/],
      [{ LETHE_PASSWORD_LOGIN: 'maybe' }, /LETHE_PASSWORD_LOGIN must be true or false/],
    ];
    for (const [env, message] of cases)
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, message);
          return true;
        },
      );
  });
});
