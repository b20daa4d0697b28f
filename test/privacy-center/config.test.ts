// The subject side's variables: their documented defaults, and a bad value stops the process with a
// sentence naming the variable.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import {
  downloadUrl,
  publicBaseUrl,
  requestStatusUrl,
} from '../../src/privacy-center-settings/public-url.ts';

describe('subject side configuration', () => {
  it('uses the documented defaults', () => {
    const config = loadConfig({});
    assert.equal(config.publicRequestsPerMinute, 10);
    assert.equal(config.identityVerificationRequired, true);
    assert.equal(config.identityVerificationTtlSeconds, 600);
    assert.equal(config.publicErasureAutoApprove, false);
    assert.equal(config.accessPackageTtlSeconds, 604800);
    assert.equal(config.publicUrl, undefined);
    assert.equal(config.smtpUrl, undefined);
    assert.equal(publicBaseUrl(config), 'http://127.0.0.1:8080');
  });

  it('reads each variable', () => {
    const config = loadConfig({
      LETHE_PUBLIC_REQUESTS_PER_MINUTE: '3',
      LETHE_SUBJECT_IDENTITY_VERIFICATION_REQUIRED: 'false',
      LETHE_IDENTITY_VERIFICATION_TTL_SECONDS: '120',
      LETHE_PUBLIC_ERASURE_AUTO_APPROVE: 'true',
      LETHE_ACCESS_PACKAGE_TTL_SECONDS: '3600',
      LETHE_PUBLIC_URL: 'https://privacy.example.com/',
      LETHE_SMTP_URL: 'smtp://127.0.0.1:2525',
      LETHE_SMTP_FROM: 'Privacy <privacy@example.com>',
    });
    assert.equal(config.publicRequestsPerMinute, 3);
    assert.equal(config.identityVerificationRequired, false);
    assert.equal(config.identityVerificationTtlSeconds, 120);
    assert.equal(config.publicErasureAutoApprove, true);
    assert.equal(config.accessPackageTtlSeconds, 3600);
    assert.equal(config.smtpFrom, 'Privacy <privacy@example.com>');
    assert.equal(
      requestStatusUrl(config, 'pri_1'),
      'https://privacy.example.com/privacy-center/requests/pri_1',
    );
    assert.equal(downloadUrl(config, 'abc'), 'https://privacy.example.com/privacy-center/download/abc');
  });

  it('refuses bad values, naming the variable', () => {
    for (const env of [
      { LETHE_PUBLIC_REQUESTS_PER_MINUTE: '0' },
      { LETHE_SUBJECT_IDENTITY_VERIFICATION_REQUIRED: 'maybe' },
      { LETHE_IDENTITY_VERIFICATION_TTL_SECONDS: '-5' },
      { LETHE_PUBLIC_ERASURE_AUTO_APPROVE: 'sometimes' },
      { LETHE_ACCESS_PACKAGE_TTL_SECONDS: 'a week' },
      { LETHE_PUBLIC_URL: 'ftp://example.com' },
      { LETHE_PUBLIC_URL: 'not a url' },
      { LETHE_SMTP_URL: 'http://mail.example.com' },
    ]) {
      const [name] = Object.keys(env) as [string];
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => error instanceof ConfigError && error.message.includes(name),
        name,
      );
    }
  });
});
