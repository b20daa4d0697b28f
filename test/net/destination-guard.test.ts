import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertAllowedDestination, isInternalAddress } from '../../src/net/destination-guard.ts';

const strict = { allowInsecureWebhooks: false, webhookAllowedHosts: [] };

describe('destination guard', () => {
  it('classifies internal addresses, including IPv6 forms that carry an IPv4 address', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::10.0.0.1',
      '2002:7f00:1::1',
    ]) {
      assert.equal(isInternalAddress(address), true, address);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      assert.equal(isInternalAddress(address), false, address);
    }
  });

  it('refuses every spelling of ::ffff:0:0/96 carrying an internal IPv4, Teredo 2001::/32 and 6to4 2002::/16', () => {
    for (const address of [
      '0:0:0:0:0:ffff:7f00:1',
      '0000:0000:0000:0000:0000:FFFF:127.0.0.1',
      '::ffff:0:7f00:1',
      '::ffff:0:127.0.0.1',
      '::ffff:0:a9fe:a9fe',
      '::ffff:0:0',
      '::7f00:1',
      '64:ff9b::a9fe:a9fe',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '2001::1',
      '2002:5db8:d822::1',
      '2002::',
      'fe80::1%eth0',
    ]) {
      assert.equal(isInternalAddress(address), true, address);
    }
    for (const address of ['0:0:0:0:0:ffff:808:808', '64:ff9b::8.8.8.8', '2001:4860:4860::8888']) {
      assert.equal(isInternalAddress(address), false, address);
    }
  });

  it('requires https unless insecure webhooks are allowed', async () => {
    await assert.rejects(
      assertAllowedDestination('http://93.184.216.34/hook', strict, 'url'),
      /url must use https/,
    );
    const url = await assertAllowedDestination(
      'http://93.184.216.34/hook',
      { ...strict, allowInsecureWebhooks: true },
      'url',
    );
    assert.equal(url.hostname, '93.184.216.34');
  });

  it('names both variables when an http URL points to an internal host', async () => {
    for (const raw of ['http://127.0.0.1:9000/hook', 'http://localhost/hook']) {
      await assert.rejects(assertAllowedDestination(raw, strict, 'url'), (error: Error) => {
        assert.match(error.message, /LETHE_ALLOW_INSECURE_WEBHOOKS=true/);
        assert.match(error.message, /LETHE_WEBHOOK_ALLOWED_HOSTS/);
        return true;
      });
    }
    // A public http host needs only the first.
    await assert.rejects(
      assertAllowedDestination('http://93.184.216.34/hook', strict, 'url'),
      (error: Error) => {
        assert.doesNotMatch(error.message, /LETHE_WEBHOOK_ALLOWED_HOSTS/);
        return true;
      },
    );
  });

  it('refuses malformed URLs, credentials in URLs and internal hosts', async () => {
    await assert.rejects(assertAllowedDestination('not a url', strict, 'url'), /url must be an absolute URL/);
    await assert.rejects(assertAllowedDestination('ftp://93.184.216.34/', strict, 'url'), /https/);
    await assert.rejects(
      assertAllowedDestination('https://user:pw@93.184.216.34/', strict, 'url'),
      /credentials/,
    );
    for (const target of [
      'https://127.0.0.1/hook',
      'https://[::1]/hook',
      'https://[::ffff:169.254.169.254]/',
      'https://localhost:8443/',
      'https://10.0.0.8/',
    ]) {
      await assert.rejects(
        assertAllowedDestination(target, strict, 'token_url'),
        /token_url points to an internal address/,
        target,
      );
    }
  });

  it('lets the operator allow listed hosts', async () => {
    const allowed = { ...strict, webhookAllowedHosts: ['127.0.0.1', 'localhost'] };
    assert.equal((await assertAllowedDestination('https://127.0.0.1:9/x', allowed, 'url')).port, '9');
    assert.equal(
      (await assertAllowedDestination('https://localhost/x', allowed, 'url')).hostname,
      'localhost',
    );
  });
});
