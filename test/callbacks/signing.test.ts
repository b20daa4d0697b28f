// Signed callbacks: the Lethe-Signature format and its verification, and the per-connection signing secret
// over real HTTP (shown once at creation and at rotation, never readable again) on the test store.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import {
  CallbackSigning,
  signatureHeader,
  signatureHeaderForAll,
  verifySignature,
} from '../../src/callbacks/signing.ts';
import { createConnection, scopedToken } from '../connections/support.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

// Computed outside Lethe: printf '%s' '1700000000.<body>' | openssl dgst -sha256 -hmac 'whsec_test-vector-secret'
const VECTOR = {
  secret: 'whsec_test-vector-secret',
  body: '{"event":"privacy_request","id":"pri_1"}',
  t: 1_700_000_000,
  v1: '0b691cd500aecf15e72311336e4f883c1a6598b054d02c56465d7e9fc8edae37',
};
const SECRET_SHAPE = /^whsec_[A-Za-z0-9_-]{43}$/;

describe('signature header', () => {
  it('is t=<unix>,v1=<hex HMAC-SHA256 of "t.body">', () => {
    assert.equal(signatureHeader(VECTOR.secret, VECTOR.body, VECTOR.t), `t=${VECTOR.t},v1=${VECTOR.v1}`);
    assert.equal(
      signatureHeader(VECTOR.secret, Buffer.from(VECTOR.body), VECTOR.t),
      `t=${VECTOR.t},v1=${VECTOR.v1}`,
    );
  });

  it('carries one v1 entry per secret, the first secret first', () => {
    const header = signatureHeaderForAll(['whsec_other', VECTOR.secret], VECTOR.body, VECTOR.t);
    const entries = header.split(',');
    assert.equal(entries.length, 3);
    assert.equal(entries[0], `t=${VECTOR.t}`);
    assert.equal(entries[2], `v1=${VECTOR.v1}`);
  });

  it('refuses a timestamp that is not a whole number of seconds', () => {
    assert.throws(() => signatureHeader(VECTOR.secret, VECTOR.body, 1.5), RangeError);
    assert.throws(() => signatureHeader(VECTOR.secret, VECTOR.body, -1), RangeError);
  });
});

describe('signature verification', () => {
  const header = `t=${VECTOR.t},v1=${VECTOR.v1}`;
  const at = (now: number, toleranceSeconds = 300) => ({ now, toleranceSeconds });

  it('accepts the signature within the tolerance on either side of the timestamp', () => {
    assert.ok(verifySignature(header, VECTOR.body, VECTOR.secret, at(VECTOR.t)));
    assert.ok(verifySignature(header, VECTOR.body, VECTOR.secret, at(VECTOR.t + 300)));
    assert.ok(verifySignature(header, VECTOR.body, VECTOR.secret, at(VECTOR.t - 300)));
    assert.ok(verifySignature(header, Buffer.from(VECTOR.body), VECTOR.secret, at(VECTOR.t)));
    assert.ok(verifySignature(` t=${VECTOR.t} , v1=${VECTOR.v1} `, VECTOR.body, VECTOR.secret, at(VECTOR.t)));
  });

  it('refuses a signature outside the tolerance', () => {
    assert.ok(!verifySignature(header, VECTOR.body, VECTOR.secret, at(VECTOR.t + 301)));
    assert.ok(!verifySignature(header, VECTOR.body, VECTOR.secret, at(VECTOR.t - 301)));
    assert.ok(!verifySignature(header, VECTOR.body, VECTOR.secret, at(VECTOR.t + 11, 10)));
    assert.ok(
      !verifySignature(header, VECTOR.body, VECTOR.secret),
      'the default clock is today, years later',
    );
  });

  it('refuses a tampered body, another secret, and a moved timestamp', () => {
    assert.ok(!verifySignature(header, VECTOR.body.replace('pri_1', 'pri_2'), VECTOR.secret, at(VECTOR.t)));
    assert.ok(!verifySignature(header, `${VECTOR.body} `, VECTOR.secret, at(VECTOR.t)));
    assert.ok(!verifySignature(header, VECTOR.body, 'whsec_another', at(VECTOR.t)));
    assert.ok(
      !verifySignature(`t=${VECTOR.t + 1},v1=${VECTOR.v1}`, VECTOR.body, VECTOR.secret, at(VECTOR.t)),
    );
  });

  it('accepts any one matching v1 entry and ignores unknown entries', () => {
    const rotated = `t=${VECTOR.t},v1=${'0'.repeat(64)},v1=${VECTOR.v1},v2=anything`;
    assert.ok(verifySignature(rotated, VECTOR.body, VECTOR.secret, at(VECTOR.t)));
  });

  it('refuses malformed headers', () => {
    for (const malformed of [
      undefined,
      null,
      '',
      VECTOR.v1,
      `v1=${VECTOR.v1}`,
      `t=${VECTOR.t}`,
      `t=${VECTOR.t},t=${VECTOR.t},v1=${VECTOR.v1}`,
      `t=abc,v1=${VECTOR.v1}`,
      `t=${VECTOR.t},v1=${VECTOR.v1.toUpperCase()}`,
      `t=${VECTOR.t},v1=${VECTOR.v1.slice(2)}`,
      `t=${VECTOR.t},v1=${VECTOR.v1}${','.repeat(5000)}`,
    ]) {
      assert.ok(!verifySignature(malformed, VECTOR.body, VECTOR.secret, at(VECTOR.t)), String(malformed));
    }
  });
});

describe('connection signing secrets', () => {
  let service: TestService;
  let token: string;
  let signing: CallbackSigning;
  const shownSecrets: string[] = [];

  before(async () => {
    service = await startTestService({}, { captureLogs: true });
    token = await service.rootToken();
    signing = new CallbackSigning(service.services);
  });
  after(() => service.stop());

  const rotate = (key: string, json?: unknown, callToken = token) =>
    service.call('POST', `/v1/connection/${key}/signing-secret`, { token: callToken, json });

  async function signs(key: string, secret: string): Promise<boolean> {
    const body = JSON.stringify({ connection: key, at: Date.now() });
    return verifySignature(await signing.headerFor(key, body), body, secret);
  }

  it('shows the signing secret once, in the succeeded item that created the connection', async () => {
    const created = await createConnection(service, 'signed');
    assert.match(created.signing_secret, SECRET_SHAPE);
    assert.equal(created.has_signing_secret, true);
    shownSecrets.push(created.signing_secret);

    const updated = await createConnection(service, 'signed', 'Renamed');
    assert.equal(updated.name, 'Renamed');
    assert.equal(updated.has_signing_secret, true);
    assert.ok(!('signing_secret' in updated), 'an update never shows it');

    const one = await service.call('GET', '/v1/connection/signed', { token });
    assert.equal(one.body.has_signing_secret, true);
    assert.ok(!('signing_secret' in one.body));
    const list = await service.call('GET', '/v1/connection', { token });
    for (const answer of [one, list]) assert.ok(!answer.text.includes(created.signing_secret));

    assert.ok(await signs('signed', created.signing_secret), 'callbacks are signed with the shown secret');
  });

  it('gives every connection created in one bulk request its own secret', async () => {
    const answer = await service.call('PATCH', '/v1/connection', {
      token,
      json: [
        { name: 'First', key: 'bulk_first', connection_type: 'https', access: 'read' },
        { name: 'Second', key: 'bulk_second', connection_type: 'https', access: 'read' },
        { name: 'Updated', key: 'signed', connection_type: 'https', access: 'read' },
      ],
    });
    assert.equal(answer.status, 200, answer.text);
    const [first, second, existing] = answer.body.succeeded;
    assert.match(first.signing_secret, SECRET_SHAPE);
    assert.match(second.signing_secret, SECRET_SHAPE);
    assert.notEqual(first.signing_secret, second.signing_secret);
    assert.ok(!('signing_secret' in existing));
    shownSecrets.push(first.signing_secret, second.signing_secret);
    assert.ok(await signs('bulk_second', second.signing_secret));
    assert.ok(!(await signs('bulk_second', first.signing_secret)));
  });

  it('rotates the secret: the new one is shown once and the old one stops signing at once', async () => {
    const created = await createConnection(service, 'rotating');
    const rotated = await rotate('rotating');
    assert.equal(rotated.status, 200, rotated.text);
    assert.match(rotated.body.signing_secret, SECRET_SHAPE);
    assert.notEqual(rotated.body.signing_secret, created.signing_secret);
    assert.equal(rotated.body.previous_secret_expires_at, null);
    shownSecrets.push(created.signing_secret, rotated.body.signing_secret);

    const body = '{"hello":"receiver"}';
    const header = await signing.headerFor('rotating', body);
    assert.match(header ?? '', /^t=\d+,v1=[0-9a-f]{64}$/, 'one signature only');
    assert.ok(verifySignature(header, body, rotated.body.signing_secret));
    assert.ok(!verifySignature(header, body, created.signing_secret));

    const read = await service.call('GET', '/v1/connection/rotating', { token });
    assert.ok(!read.text.includes(rotated.body.signing_secret));
    assert.equal(read.body.has_signing_secret, true);
    for (const path of [
      '/api/v1/connection/rotating/signing-secret',
      '/connection/rotating/signing-secret',
    ]) {
      const alias = await service.call('POST', path, { token, json: {} });
      assert.equal(alias.status, 200, `${path}: ${alias.text}`);
      shownSecrets.push(alias.body.signing_secret);
    }
  });

  it('signs with both secrets during a grace period, then with the new one only', async () => {
    const created = await createConnection(service, 'graceful');
    const rotated = await rotate('graceful', { grace_period_seconds: 2 });
    assert.equal(rotated.status, 200, rotated.text);
    shownSecrets.push(created.signing_secret, rotated.body.signing_secret);
    const until = Date.parse(rotated.body.previous_secret_expires_at);
    assert.ok(until > Date.now() && until <= Date.now() + 3000, rotated.body.previous_secret_expires_at);

    const body = '{"during":"grace"}';
    const during = await signing.headerFor('graceful', body);
    assert.match(during ?? '', /^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    assert.ok(verifySignature(during, body, rotated.body.signing_secret));
    assert.ok(verifySignature(during, body, created.signing_secret));

    await sleep(Math.max(0, until - Date.now()) + 500);
    const afterwards = await signing.headerFor('graceful', body);
    assert.match(afterwards ?? '', /^t=\d+,v1=[0-9a-f]{64}$/);
    assert.ok(verifySignature(afterwards, body, rotated.body.signing_secret));
    assert.ok(!verifySignature(afterwards, body, created.signing_secret));
  });

  it('refuses a bad rotation with 404, 401, 403 or 422 and keeps the current secret', async () => {
    const created = await createConnection(service, 'guarded_signing');
    shownSecrets.push(created.signing_secret);
    const unknown = await rotate('no_such_connection');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.detail, /No connection with key no_such_connection/);

    const anonymous = await service.call('POST', '/v1/connection/guarded_signing/signing-secret', {
      json: {},
    });
    assert.equal(anonymous.status, 401);
    const readOnly = await scopedToken(service, ['connection:read']);
    const forbidden = await rotate('guarded_signing', {}, readOnly);
    assert.equal(forbidden.status, 403);

    for (const body of [
      { grace_period_seconds: -1 },
      { grace_period_seconds: 86_401 },
      { grace_period_seconds: 1.5 },
      { grace_period_seconds: '60' },
      { grace_after: 60 },
      [],
    ]) {
      const refused = await rotate('guarded_signing', body);
      assert.equal(refused.status, 422, `${JSON.stringify(body)}: ${refused.text}`);
    }
    const malformed = await service.call('POST', '/v1/connection/guarded_signing/signing-secret', {
      token,
      body: '{"grace_period_seconds":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    for (const answer of [unknown, anonymous, forbidden, malformed])
      assert.ok(!('signing_secret' in answer.body));
    assert.ok(await signs('guarded_signing', created.signing_secret), 'the secret did not change');
  });

  it('gives a connection made before signing existed a secret on its first callback', async () => {
    await createConnection(service, 'legacy');
    await service.services.db.query('UPDATE connections SET signing_secret_sealed = NULL WHERE key = $1', [
      'legacy',
    ]);
    assert.equal(
      (await service.call('GET', '/v1/connection/legacy', { token })).body.has_signing_secret,
      false,
    );
    const body = '{"legacy":true}';
    const header = await signing.headerFor('legacy', body);
    assert.match(header ?? '', /^t=\d+,v1=[0-9a-f]{64}$/);
    assert.equal(
      (await service.call('GET', '/v1/connection/legacy', { token })).body.has_signing_secret,
      true,
    );
    const rotated = await rotate('legacy');
    shownSecrets.push(rotated.body.signing_secret);
    assert.ok(await signs('legacy', rotated.body.signing_secret));
  });

  it('answers undefined for a connection that does not exist', async () => {
    assert.equal(await signing.headerFor('never_created', '{}'), undefined);
  });

  it('keeps the secret sealed at rest and out of every log line', async () => {
    const { rows } = await service.services.db.query<{ sealed: Uint8Array }>(
      'SELECT signing_secret_sealed AS sealed FROM connections WHERE key = $1',
      ['signed'],
    );
    assert.ok(rows[0]);
    assert.ok(!Buffer.from(rows[0].sealed).includes(shownSecrets[0] ?? 'missing'));
    assert.ok(shownSecrets.length >= 8);
    const log = service.logLines.join('\n');
    for (const secret of shownSecrets) assert.ok(!log.includes(secret));
    assert.ok(!log.includes('whsec_'));
  });
});
