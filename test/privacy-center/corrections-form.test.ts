// Corrections asked on the privacy center's HTML page, over the real service and subject store: only the
// form of an action whose policy has an update rule asks what to correct; its rows become the request's
// corrections, which wait for an operator exactly as the JSON path's do; bad rows are refused on the page,
// with the message and the visitor's values, and nothing is stored.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  codeIn,
  DEFAULT_ACTIONS,
  isKind,
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import { definePolicy, openStores, seedSubject, type Stores } from '../privacy-requests/rule-support.ts';
import { getRequest, logOf } from '../privacy-requests/support.ts';

const POLICY = 'rectify';
const AWAITS_OPERATOR = /awaits an operator's approval: a public erasure or a correction needs a person/;

describe('corrections on the privacy center page', () => {
  let mail: MailServer;
  let service: TestService;
  let stores: Stores;
  let token: string;
  before(async () => {
    mail = await startMailServer();
    // No manual approval: a request that needs no person is approved at once, so waiting is the rule's doing.
    service = await startTestService(subjectSideConfig(mail.port), { worker: true, captureLogs: true });
    token = await service.rootToken();
    stores = await openStores(service);
    await definePolicy(service, POLICY, [
      {
        name: 'Correct',
        key: 'correct',
        action_type: 'update',
        targets: ['users.name', 'customers.address'],
      },
    ]);
    await publishDefaults(service, {
      ...DEFAULT_ACTIONS,
      actions: [
        ...DEFAULT_ACTIONS.actions,
        {
          policy_key: POLICY,
          title: 'Correct my data',
          description: 'We correct what we hold about you.',
          identity_inputs: { email: 'required' },
        },
      ],
    });
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  /** The page's forms posted as a browser does; answers the status and where it redirects. */
  const post = async (fields: Record<string, string>) => {
    const response = await fetch(`${service.url}/privacy-center/requests`, {
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

  const sectionOf = (page: string, title: string) =>
    page.split('<section class="action"').find((section) => section.includes(`>${title}</h2>`)) ?? '';

  const stored = async () =>
    (
      await service.services.db.query<{ requests: number; outbox: number }>(
        `SELECT (SELECT count(*)::int FROM privacy_requests) AS requests,
                (SELECT count(*)::int FROM outbox_messages) AS outbox`,
      )
    ).rows[0];

  const correctionsOf = async (id: string) => {
    const answer = await service.call('GET', `/v1/privacy-request/${id}/corrections`, { token });
    assert.equal(answer.status, 200, answer.text);
    return answer.body;
  };

  const verify = async (id: string, email: string) => {
    const code = codeIn(await mail.waitFor(isKind('your verification code', email)));
    const verified = await service.call('POST', `/v1/privacy-request/${id}/verify`, { json: { code } });
    assert.equal(verified.status, 200, verified.text);
  };

  it('shows the correction rows, labelled, only in the form of an action with an update rule', async () => {
    const response = await fetch(`${service.url}/privacy-center`);
    assert.equal(response.status, 200);
    const page = await response.text();
    const correct = sectionOf(page, 'Correct my data');
    assert.match(correct, /<legend>What should we correct\?<\/legend>/);
    assert.match(correct, /A person reviews every correction/);
    for (const row of [1, 2, 3]) {
      for (const name of [`correction_attribute_${row}`, `correction_value_${row}`]) {
        const id = new RegExp(`<input id="([^"]+)" name="${name}"`).exec(correct)?.[1];
        assert.ok(id, `${name} is in the form`);
        assert.ok(correct.includes(`<label for="${id}">`), `${name} has a label`);
      }
    }
    assert.doesNotMatch(correct, /name="correction_attribute_4"/);
    for (const title of ['Get a copy of my data', 'Erase my data']) {
      const other = sectionOf(page, title);
      assert.ok(other.includes('name="email"'), title);
      assert.doesNotMatch(other, /correction|What should we correct/, `${title} asks for no correction`);
    }
  });

  it('a correction from the form is the JSON path’s: the same corrections, the code, then an operator', async () => {
    const [byForm, byJson] = [await seedSubject(stores, 'form'), await seedSubject(stores, 'json')];
    const corrections = [
      { attribute: 'users.name', value: 'Fay Corrected' },
      { attribute: 'customers.address', value: '2 New Road' },
    ];
    const posted = await post({
      policy_key: POLICY,
      email: byForm.email,
      correction_attribute_1: 'users.name',
      correction_value_1: '  Fay Corrected ',
      correction_attribute_3: 'customers.address',
      correction_value_3: '2 New Road',
    });
    assert.equal(posted.status, 303, posted.text);
    const formId = /^\/privacy-center\/requests\/(pri_[\w-]+)\?lang=en$/.exec(
      posted.location ?? '',
    )?.[1] as string;
    assert.ok(formId, `${posted.location}`);
    const json = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: POLICY, identity: { email: byJson.email }, corrections },
    });
    assert.equal(json.status, 200, json.text);
    const jsonId = json.body.id as string;

    for (const [id, subject] of [
      [formId, byForm],
      [jsonId, byJson],
    ] as const) {
      const request = await getRequest(service, id);
      assert.equal(request.status, 'identity_unverified', id);
      assert.equal(request.source, 'privacy_center', id);
      assert.deepEqual((await correctionsOf(id)).corrections, corrections, id);
      await verify(id, subject.email);
      assert.equal((await getRequest(service, id)).status, 'pending', `${id} waits for a person`);
      assert.ok(
        (await logOf(service, id)).some((entry: { message?: string }) =>
          AWAITS_OPERATOR.test(entry.message ?? ''),
        ),
        `${id} awaits an operator`,
      );
    }
    const preview = await correctionsOf(formId);
    const name = preview.changes.find((change: { attribute: string }) => change.attribute === 'users.name');
    assert.equal(name?.entity_id, byForm.crm.userId, 'the operator sees the change on the subject');
    assert.equal(name?.after, 'Fay Corrected');
    assert.ok(!service.logLines.join('\n').includes('Fay Corrected'), 'no value in the process log');
  });

  it('refuses an unpublished attribute, a value too long, a row without attribute and no row; stores nothing', async () => {
    const email = 'visitor@example.com';
    const hostile = '"><script>alert(1)</script>';
    const refusals: { label: string; rows: Record<string, string>; message: RegExp }[] = [
      {
        label: 'unpublished attribute',
        rows: { correction_attribute_2: 'users.shoe_size', correction_value_2: hostile },
        message: /users\.shoe_size cannot be corrected here\./,
      },
      {
        label: 'value too long',
        rows: { correction_attribute_1: 'users.name', correction_value_1: 'x'.repeat(10_001) },
        message: /Item 1 to correct: the right value can have at most 10,000 characters\./,
      },
      {
        label: 'value without attribute',
        rows: { correction_value_3: 'Fay' },
        message: /Item 3 to correct names no information: say what to correct as table\.attribute/,
      },
      {
        label: 'no row',
        rows: { correction_attribute_1: ' ', correction_value_1: '' },
        message: /Say what to correct: give at least one item, as table\.attribute with its right value\./,
      },
    ];
    const before = await stored();
    for (const { label, rows, message } of refusals) {
      const answer = await post({ policy_key: POLICY, email, ...rows });
      assert.equal(answer.status, 422, `${label}: ${answer.text}`);
      const form = sectionOf(answer.text, 'Correct my data');
      assert.match(form, /role="alert"/, label);
      assert.match(form, message, label);
      assert.ok(form.includes(`value="${email}"`), `${label}: the email is given back`);
      assert.doesNotMatch(answer.text, /<script/i, `${label}: every value escaped`);
    }
    const unknown = await post({
      policy_key: POLICY,
      email,
      correction_attribute_2: 'users.shoe_size',
      correction_value_2: hostile,
    });
    const given = sectionOf(unknown.text, 'Correct my data');
    assert.match(
      given,
      /name="correction_attribute_2"[^>]* value="users.shoe_size"/,
      'the rows are given back',
    );
    assert.ok(given.includes('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"'), 'escaped, as typed');

    const notUpdate = await post({
      policy_key: 'default_access_policy',
      email,
      correction_attribute_1: 'users.name',
      correction_value_1: 'Fay',
    });
    assert.equal(notUpdate.status, 422, notUpdate.text);
    assert.match(notUpdate.text, /This request does not correct data: send it without items to correct\./);
    assert.deepEqual(await stored(), before, 'nothing stored');
  });

  it("words every row's refusal in the visitor's language, and stores nothing", async () => {
    const email = 'besucher@example.de';
    const inLanguage = async (language: string, fields: Record<string, string>) => {
      const response = await fetch(`${service.url}/privacy-center/requests?lang=${language}`, {
        method: 'POST',
        body: new URLSearchParams({ policy_key: POLICY, email, ...fields }),
        redirect: 'manual',
      });
      assert.equal(response.status, 422, `${language} ${JSON.stringify(fields).slice(0, 80)}`);
      return sectionOf(await response.text(), 'Correct my data');
    };
    const cases: { language: string; rows: Record<string, string>; message: RegExp }[] = [
      {
        language: 'de',
        rows: { correction_value_3: 'Fay' },
        message: /Eintrag 3 zur Berichtigung nennt keine Angabe: Geben Sie an, was berichtigt werden soll/,
      },
      {
        language: 'de',
        rows: { correction_attribute_2: 'name', correction_value_2: 'Fay' },
        message:
          /Eintrag 2 zur Berichtigung: Schreiben Sie, was berichtigt werden soll, als tabelle\.attribut/,
      },
      {
        language: 'de',
        rows: { correction_attribute_1: 'users.name', correction_value_1: 'x'.repeat(10_001) },
        message: /Eintrag 1 zur Berichtigung: Der richtige Wert darf höchstens 10\.000 Zeichen haben\./,
      },
      {
        language: 'de',
        rows: { correction_attribute_1: `users.${'n'.repeat(300)}`, correction_value_1: 'Fay' },
        message: /Die Angabe, was berichtigt werden soll, darf höchstens 257 Zeichen haben\./,
      },
      {
        language: 'de',
        rows: {},
        message: /Geben Sie an, was berichtigt werden soll: mindestens einen Eintrag/,
      },
      {
        language: 'pl',
        rows: { correction_attribute_1: 'users.name', correction_value_1: 'x'.repeat(10_001) },
        message: /Pozycja 1 do sprostowania: prawidłowa wartość może mieć najwyżej 10\s000 znaków\./u,
      },
      {
        language: 'it',
        rows: { correction_value_2: 'Fay' },
        message: /L’elemento 2 da rettificare non indica alcuna informazione/,
      },
    ];
    const before = await stored();
    for (const { language, rows, message } of cases) {
      const form = await inLanguage(language, rows);
      assert.match(form, /role="alert"/, language);
      assert.match(form, message, language);
    }
    const response = await fetch(`${service.url}/privacy-center/requests?lang=sv`, {
      method: 'POST',
      body: new URLSearchParams({
        policy_key: 'default_access_policy',
        email,
        correction_attribute_1: 'users.name',
        correction_value_1: 'Fay',
      }),
      redirect: 'manual',
    });
    assert.equal(response.status, 422);
    assert.match(
      await response.text(),
      /Den här begäran rättar inga uppgifter: skicka den utan rader att rätta\./,
    );
    assert.deepEqual(await stored(), before, 'nothing stored');
  });
});
