// The data subject's journey over the HTTP API with a real SMTP server: a public submission, the code read
// from the mailed message, verification, the operator's approval, the completion mail and its download
// link (a ZIP whose data.json holds the subject's data), and for erasure the counts by datastore. The
// process log never holds the subject's email.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { openStores, seedSubject, type Stores, uploadFile } from '../privacy-requests/rule-support.ts';
import {
  codeIn,
  downloadLinkIn,
  isKind,
  type MailServer,
  publishDefaults,
  readZip,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';

describe('the data subject journey over the API', () => {
  let mail: MailServer;
  let service: TestService;
  let stores: Stores;
  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port, { requireManualApproval: true }), {
      worker: true,
      captureLogs: true,
    });
    stores = await openStores(service);
    await publishDefaults(service);
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  const approve = async (id: string) => {
    const answer = await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
      token: await service.rootToken(),
      json: { request_ids: [id] },
    });
    assert.equal(answer.status, 200, answer.text);
  };

  it('access: code by mail, verify, approve, completion mail, ZIP download with data.json and files', async () => {
    const subject = await seedSubject(stores, 'ada');
    await uploadFile(stores.crm, subject.crm.userId, 'avatar', 'picture bytes of ada');
    const labelled = await service.call('PUT', '/v1/datastore/crm/labels', {
      token: await service.rootToken(),
      json: { users: 'Your account' },
    });
    assert.equal(labelled.status, 200, labelled.text);
    assert.deepEqual(labelled.body, { name: 'crm', labels: { users: 'Your account' } });
    const submitted = await service.call('POST', '/v1/privacy-center/privacy-request', {
      // The subject lives in Germany: the report writes its dates in Berlin's time.
      json: { policy_key: 'default_access_policy', identity: { email: subject.email }, location: 'DE' },
    });
    assert.equal(submitted.status, 200, submitted.text);
    assert.equal(submitted.body.status, 'identity_unverified');
    const id = submitted.body.id as string;

    const codeMail = await mail.waitFor(isKind('your verification code', subject.email));
    assert.equal(codeMail.from, 'privacy@lethe.test');
    assert.match(codeMail.text, /Example Ltd/);
    assert.match(codeMail.text, /Content-Type: text\/html/);
    const code = codeIn(codeMail);

    const verified = await service.call('POST', `/v1/privacy-request/${id}/verify`, { json: { code } });
    assert.equal(verified.status, 200, verified.text);
    assert.deepEqual(verified.body, { id, status: 'pending' });
    await mail.waitFor(isKind('we received your request', subject.email));

    const standing = await service.call('GET', `/v1/privacy-center/privacy-request/${id}`);
    assert.equal(standing.body.stage, 'verified');
    assert.equal(standing.body.action_title, 'Get a copy of my data');

    await approve(id);
    const done = await mail.waitFor(isKind('your request is complete', subject.email));
    const link = downloadLinkIn(done);
    assert.ok(link.startsWith(`${service.url}/privacy-center/download/`), link);

    const downloads = async () =>
      (
        await service.services.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM audit_log WHERE action = 'access-package.download'`,
        )
      ).rows[0]?.n;
    const downloadsBefore = await downloads();
    // A link checker or mail scanner sends HEAD: it learns the link works, and nothing is audited as a download.
    const head = await fetch(link, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'application/zip');
    assert.equal(await downloads(), downloadsBefore, 'HEAD writes no audit entry');
    const headOfUnknown = await fetch(`${service.url}/privacy-center/download/${'x'.repeat(43)}`, {
      method: 'HEAD',
    });
    assert.equal(headOfUnknown.status, 404);

    const download = await fetch(link);
    assert.equal(download.status, 200);
    assert.equal(download.headers.get('content-type'), 'application/zip');
    const entries = await readZip(Buffer.from(await download.arrayBuffer()));
    const data = JSON.parse((entries.get('data.json') as Buffer).toString('utf8'));
    assert.equal(data.privacy_request_id, id);
    const crm = data.datastores.find((store: { name: string }) => store.name === 'crm');
    const user = crm.entities.find((entity: { id: string }) => entity.id === subject.crm.userId);
    assert.ok(user.attributes.some((attribute: { value: string }) => attribute.value === subject.email));
    const report = (entries.get('report.html') as Buffer).toString('utf8');
    assert.ok(report.includes('<h2>crm</h2>') && report.includes('<h2>shop</h2>'), 'grouped by datastore');
    assert.ok(!/<script/i.test(report), 'no script in the report');
    const avatar = [...entries.keys()].find((name) => name.startsWith('files/crm/'));
    assert.ok(avatar, [...entries.keys()].join(', '));
    assert.ok(report.includes(`<h3>Your account <small><code>${subject.crm.userId}</code>`), 'the label');
    assert.match(
      report,
      /gathered [A-Z][a-z]+ \d{1,2}, \d{4} at \d{1,2}:\d\d [AP]M GMT\+[12]\./,
      "a date in words, in the person's local time (Berlin's, winter or summer)",
    );
    const hrefs = [...report.matchAll(/<a href="([^"]+)">/g)].map((match) => match[1]);
    assert.ok(hrefs.includes(avatar), `the report links ${avatar}`);
    for (const href of hrefs) assert.ok(entries.has(href as string), `${href} is an entry of the ZIP`);
    assert.equal((entries.get(avatar) as Buffer).toString('utf8'), 'picture bytes of ada');

    const audit = await service.services.db.query<{ details: { privacy_request_id: string } }>(
      `SELECT details FROM audit_log WHERE action = 'access-package.download'`,
    );
    assert.ok(
      audit.rows.some((row) => row.details.privacy_request_id === id),
      'the download is audited',
    );
    assert.equal(await downloads(), (downloadsBefore ?? 0) + 1, 'the GET is audited once');

    const log = await service.call('GET', `/v1/privacy-request/${id}/log`, {
      token: await service.rootToken(),
    });
    const sent = log.body.filter((entry: { message: string }) =>
      /^message \w+ sent to /.test(entry.message ?? ''),
    );
    assert.equal(sent.length, 3, log.text);
    for (const entry of sent) assert.match(entry.message, /sent to a\*\*\*@E\*\*\*\.COM$/);
    assert.ok(!log.text.includes(subject.email), 'the request log holds no email');
    const token = link.split('/').at(-1) as string;
    for (const value of [subject.email, subject.email.toLowerCase(), token])
      assert.ok(
        !service.logLines.join('\n').includes(value),
        'the process log holds no email nor download token',
      );
  });

  it('erasure: the completion mail says what was erased, by datastore, with counts', async () => {
    const subject = await seedSubject(stores, 'grace');
    const submitted = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: 'default_erasure_policy', identity: { email: subject.email } },
    });
    assert.equal(submitted.status, 200, submitted.text);
    const id = submitted.body.id as string;
    const code = codeIn(await mail.waitFor(isKind('your verification code', subject.email)));
    assert.equal(
      (await service.call('POST', `/v1/privacy-request/${id}/verify`, { json: { code } })).status,
      200,
    );
    await approve(id);
    const done = await mail.waitFor(isKind('your request is complete', subject.email));
    assert.match(done.text, /We erased your personal data as follows/);
    assert.match(done.text, /crm: 3 records/);
    assert.match(done.text, /shop: 2 records/);
    assert.ok(!/privacy-center\/download/.test(done.text), 'no download link for an erasure');
  });

  it('operator-submitted requests skip verification and are told they were received', async () => {
    const email = `operator.${Date.now()}@example.com`;
    const created = await service.call('POST', '/v1/privacy-request', {
      token: await service.rootToken(),
      json: [{ policy_key: 'default_access_policy', identity: { email } }],
    });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.succeeded[0].status, 'pending');
    await mail.waitFor(isKind('we received your request', email));
    assert.equal(mail.mailsTo(email).filter((m) => m.text.includes('verification code')).length, 0);
  });
});
