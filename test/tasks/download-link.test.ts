// The download link of a request whose only access results are what manual tasks gave, over real HTTP, a
// real worker and a real SMTP server: a policy with `drp_action: access` and no rules mails the subject a
// link to a ZIP holding the task's data once the task is completed with data; completed without data, the
// request has no access results and its completion message carries no link.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  downloadLinkIn,
  isKind,
  type MailServer,
  readZip,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import { submit, waitForStatus } from '../privacy-requests/support.ts';
import { putManualSystem, tasksOf } from './support.ts';

describe('the download link of an access request answered by manual tasks alone', () => {
  let mail: MailServer;
  let service: TestService;
  let token: string;

  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port), { worker: true });
    token = await service.rootToken();
    await putManualSystem(service, 'ledger', { name: 'Paper ledger' });
    const policy = await service.call('PATCH', '/v1/dsr/policy', {
      token,
      json: [{ name: 'ledger access', key: 'ledger_access', drp_action: 'access' }],
    });
    assert.deepEqual(policy.body.failed, [], policy.text);
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  const completedWith = async (email: string, data: Record<string, string>) => {
    const created = await submit(service, { policy_key: 'ledger_access', identity: { email } });
    await waitForStatus(service, created.id, 'requires_input');
    const [task] = await tasksOf(service, created.id);
    const done = await service.call('POST', `/v1/task/${task.id}/complete`, { token, json: { data } });
    assert.equal(done.status, 200, done.text);
    await waitForStatus(service, created.id, 'complete');
    return mail.waitFor(isKind('your request is complete', email));
  };

  it("mails a link to the task's data when the task gave some", async () => {
    const completion = await completedWith('lou@example.com', { customer_number: 'L-77' });
    const download = await fetch(downloadLinkIn(completion));
    assert.equal(download.status, 200);
    const zip = await readZip(Buffer.from(await download.arrayBuffer()));
    const data = JSON.parse(zip.get('data.json')?.toString('utf8') ?? '{}');
    assert.deepEqual(data.manual_systems, [
      { key: 'ledger', name: 'Paper ledger', data: { customer_number: 'L-77' } },
    ]);
  });

  it('mails no link when the task gave nothing', async () => {
    const completion = await completedWith('max@example.com', {});
    assert.doesNotMatch(completion.text, /\/privacy-center\/download\//);
    assert.match(completion.text, /Your request is complete/);
  });
});
