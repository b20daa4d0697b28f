// The full access report (GDPR art. 15(1)) over the real service, a real SMTP server and Chromium:
// disclosures set on a datastore and on a receiver's connection reach the ZIP's report.html ("how we use
// your data" per source) and data.json; data.csv holds one row per attribute value, formulas made inert;
// the report reads at phone size. Bad input changes nothing.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ARTIFACTS, launchBrowser, screenshot } from '../console/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  downloadLinkIn,
  isKind,
  type MailServer,
  readZip,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import { openStores, seedSubject, type Stores } from '../privacy-requests/rule-support.ts';
import {
  policyWithWebhooks,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from '../privacy-requests/support.ts';

const POLICY = 'full_report';
const CRM_DISCLOSURE = {
  purposes: ['Running your account', 'Sending you the newsletter you asked for'],
  recipients: ['Our email provider (Mailer Ltd)'],
  retention: 'While your account is open, then 12 months',
  source: 'You, when you signed up',
  automated_decisions: '',
};

describe('the full access report', () => {
  let mail: MailServer;
  let receiver: Receiver;
  let service: TestService;
  let stores: Stores;
  let token: string;
  before(async () => {
    mail = await startMailServer();
    receiver = await startReceiver();
    service = await startTestService(subjectSideConfig(mail.port), { worker: true });
    token = await service.rootToken();
    stores = await openStores(service);
    await policyWithWebhooks(service, receiver, POLICY, [{ key: 'analytics', direction: 'one_way' }]);
    const rule = await service.call('PATCH', `/v1/dsr/policy/${POLICY}/rule`, {
      token,
      json: [{ name: 'Collect', key: 'collect', action_type: 'access' }],
    });
    assert.deepEqual(rule.body.failed, [], rule.text);
  });
  after(async () => {
    await service.stop();
    await receiver.close();
    await mail.close();
  });

  it('refuses bad disclosures and unknown sources, changing nothing', async () => {
    const unknown = await service.call('PUT', '/v1/datastore/nosuch/disclosure', {
      token,
      json: CRM_DISCLOSURE,
    });
    assert.equal(unknown.status, 404, unknown.text);
    const notList = await service.call('PUT', '/v1/datastore/crm/disclosure', {
      token,
      json: { ...CRM_DISCLOSURE, purposes: 'everything' },
    });
    assert.equal(notList.status, 422, notList.text);
    assert.match(notList.body.detail, /purposes/);
    const tooLong = await service.call('PUT', '/v1/datastore/crm/disclosure', {
      token,
      json: { ...CRM_DISCLOSURE, retention: 'x'.repeat(1001) },
    });
    assert.equal(tooLong.status, 422, tooLong.text);
    const unset = await service.call('GET', '/v1/datastore/crm/disclosure', { token });
    assert.equal(unset.status, 200, unset.text);
    assert.deepEqual(unset.body.purposes, []);
    assert.equal(unset.body.updated_at, null);
  });

  it('the ZIP carries the disclosures in report.html and data.json, and data.csv', async () => {
    const subject = await seedSubject(stores, 'dora');
    const hostile = await stores.crm.call('/api/attribute/update', {
      json: [
        { id: subject.crm.userId, attributes: [{ name: 'nickname', value: '=HYPERLINK("http://evil")' }] },
      ],
    });
    assert.ok(hostile.status < 300, hostile.text);
    const put = await service.call('PUT', '/v1/datastore/crm/disclosure', { token, json: CRM_DISCLOSURE });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.purposes, CRM_DISCLOSURE.purposes);
    const receiverUse = await service.call('PUT', `/v1/connection/${POLICY}_analytics/disclosure`, {
      token,
      json: { purposes: ['Measuring use of the shop'], recipients: [], retention: '26 months' },
    });
    assert.equal(receiverUse.status, 200, receiverUse.text);

    const created = await submit(service, { policy_key: POLICY, identity: { email: subject.email } });
    await waitForStatus(service, created.id, 'complete');
    const link = downloadLinkIn(
      await mail.waitFor(isKind('your request is complete', subject.email.toLowerCase())),
    );
    const download = await fetch(link);
    assert.equal(download.status, 200);
    const entries = await readZip(Buffer.from(await download.arrayBuffer()));
    assert.ok(entries.has('data.csv'), [...entries.keys()].join(', '));

    const data = JSON.parse((entries.get('data.json') as Buffer).toString('utf8'));
    const crm = data.datastores.find((store: { name: string }) => store.name === 'crm');
    assert.deepEqual(crm.disclosure.purposes, CRM_DISCLOSURE.purposes);
    assert.equal(crm.disclosure.retention, CRM_DISCLOSURE.retention);
    const shop = data.datastores.find((store: { name: string }) => store.name === 'shop');
    assert.deepEqual(shop.disclosure.purposes, [], 'a datastore without a disclosure says nothing');
    assert.deepEqual(data.receivers, [
      {
        connection: `${POLICY}_analytics`,
        disclosure: {
          purposes: ['Measuring use of the shop'],
          recipients: [],
          retention: '26 months',
          source: '',
          automated_decisions: '',
          updated_at: receiverUse.body.updated_at,
        },
      },
    ]);

    const report = (entries.get('report.html') as Buffer).toString('utf8');
    assert.match(report, /How we use your data/);
    assert.ok(report.includes('Sending you the newsletter you asked for'));
    assert.ok(report.includes('While your account is open, then 12 months'));
    assert.ok(report.includes(`How ${POLICY}_analytics uses your data`));
    assert.ok(!/<script/i.test(report));

    const csv = (entries.get('data.csv') as Buffer).toString('utf8');
    const lines = csv.trimEnd().split('\r\n');
    assert.equal(lines[0], '"datastore","entity_type","entity_id","attribute","value"');
    assert.ok(lines.includes(`"crm","users","${subject.crm.userId}","email","${subject.email}"`), csv);
    assert.ok(lines.includes(`"shop","orders","${subject.shop.orderId}","total","12.50"`), csv);
    assert.ok(
      lines.includes(`"crm","users","${subject.crm.userId}","nickname","'=HYPERLINK(""http://evil"")"`),
      'a formula is made inert',
    );
    const attributeCount = data.datastores.reduce(
      (sum: number, store: { entities: { attributes: unknown[] }[] }) =>
        sum + store.entities.reduce((inner, entity) => inner + entity.attributes.length, 0),
      0,
    );
    assert.equal(lines.length - 1, attributeCount, 'one row per attribute value');

    // A person reads it on a phone: no sideways scrolling at 375 px, and a screenshot to look at.
    const file = path.join(ARTIFACTS, 'access-report.html');
    await mkdir(ARTIFACTS, { recursive: true });
    await writeFile(file, report);
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 375, height: 740 }, deviceScaleFactor: 2 });
      await page.goto(`file://${file}`);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 0, `the report scrolls sideways by ${overflow}px at phone size`);
      await screenshot(page, 'access-report-phone');
    } finally {
      await browser.close();
    }
  });
});
