// Where the person lives (issue 37): the privacy center's forms ask for the country and, in the United
// States, the state; the public JSON submission takes `location`. Both are stored as the request's location
// (ISO 3166) and decide its jurisdiction; a value that is no ISO 3166 code is refused (422 in JSON, the form
// given back with the problem in HTML) and nothing is stored. The default policies fall back to the EU's
// month (migration 037) when the person says nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';

describe('the privacy center asks where the person lives', () => {
  let mail: MailServer;
  let service: TestService;
  let token: string;
  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port, { requireManualApproval: true }), {
      worker: false,
    });
    token = await service.rootToken();
    await publishDefaults(service);
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  const count = async () =>
    Number(
      (await service.services.db.query<{ n: string }>('SELECT count(*) AS n FROM privacy_requests')).rows[0]
        ?.n,
    );
  const stored = async (id: string) =>
    (await service.call('GET', `/v1/privacy-request/${id}`, { token })).body as {
      location: string | null;
      jurisdiction: string | null;
    };
  const post = async (fields: Record<string, string>) => {
    const response = await fetch(`${service.url}/privacy-center/requests?lang=en`, {
      method: 'POST',
      body: new URLSearchParams(fields),
      redirect: 'manual',
    });
    return {
      status: response.status,
      location: response.headers.get('location'),
      text: await response.text(),
    };
  };

  it('shows a country and a US state select on the form, the countries named in the page language', async () => {
    const english = await (await fetch(`${service.url}/privacy-center?lang=en`)).text();
    assert.match(english, /<legend>Where you live<\/legend>/);
    assert.match(english, /<label for="country-0">Country<\/label>/);
    assert.match(english, /<option value="FR">France<\/option>/);
    assert.match(english, /<option value="CA">California \(US-CA\)<\/option>/);
    const german = await (await fetch(`${service.url}/privacy-center?lang=de`)).text();
    assert.match(german, /<legend>Wo Sie wohnen<\/legend>/);
    assert.match(german, /<option value="DE">Deutschland<\/option>/);
  });

  it('stores the JSON location and runs the request on its law', async () => {
    const answer = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: 'default_access_policy', identity: { email: 'ca@example.com' }, location: 'US-CA' },
    });
    assert.equal(answer.status, 200, answer.text);
    const request = await stored(answer.body.id as string);
    assert.equal(request.location, 'US-CA');
    assert.equal(request.jurisdiction, 'US-CA');
  });

  it("without a location, the default policy's jurisdiction is the EU's (never more than a month)", async () => {
    const answer = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: 'default_erasure_policy', identity: { email: 'none@example.com' } },
    });
    assert.equal(answer.status, 200, answer.text);
    const request = await stored(answer.body.id as string);
    assert.equal(request.location, null);
    assert.equal(request.jurisdiction, 'EU');
  });

  it('refuses a JSON location that is no ISO 3166 code with 422 naming it, storing nothing', async () => {
    for (const location of ['XX', 'France', 'US-ZZ']) {
      const before = await count();
      const answer = await service.call('POST', '/v1/privacy-center/privacy-request', {
        json: { policy_key: 'default_access_policy', identity: { email: 'bad@example.com' }, location },
      });
      assert.equal(answer.status, 422, answer.text);
      assert.ok(String(answer.body.detail).includes(location.toUpperCase()), answer.text);
      assert.match(String(answer.body.detail), /ISO 3166/);
      assert.equal(await count(), before, `${location}: nothing stored`);
    }
  });

  it('stores the form’s country, and the US state as US-XX', async () => {
    const french = await post({
      policy_key: 'default_access_policy',
      email: 'fr@example.com',
      country: 'FR',
    });
    assert.equal(french.status, 303, french.text);
    const frenchId = /requests\/([^?]+)/.exec(french.location ?? '')?.[1] as string;
    assert.deepEqual(await stored(frenchId).then((r) => [r.location, r.jurisdiction]), ['FR', 'EU']);

    const texan = await post({
      policy_key: 'default_access_policy',
      email: 'tx@example.com',
      country: 'US',
      us_state: 'TX',
    });
    assert.equal(texan.status, 303, texan.text);
    const texanId = /requests\/([^?]+)/.exec(texan.location ?? '')?.[1] as string;
    assert.deepEqual(await stored(texanId).then((r) => [r.location, r.jurisdiction]), ['US-TX', 'US-TX']);
  });

  it('gives the form back with the problem, the choices kept, and stores nothing on a bad place', async () => {
    const before = await count();
    const unknown = await post({
      policy_key: 'default_access_policy',
      email: 'zz@example.com',
      country: 'ZZ',
    });
    assert.equal(unknown.status, 422);
    assert.match(unknown.text, /role="alert"[^>]*>“ZZ” is not a country or region we know/);
    assert.ok(unknown.text.includes('value="zz@example.com"'), 'the email is given back');

    const contradiction = await post({
      policy_key: 'default_access_policy',
      email: 'fr.tx@example.com',
      country: 'FR',
      us_state: 'TX',
    });
    assert.equal(contradiction.status, 422);
    assert.match(contradiction.text, /Choose a US state only with the United States as your country\./);
    assert.match(contradiction.text, /<option value="FR" selected>France<\/option>/);
    assert.equal(await count(), before);
  });
});
