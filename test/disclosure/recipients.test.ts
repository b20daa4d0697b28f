// Recipients of an erasure (GDPR art. 19) over the real service, a real SMTP server and a real receiver:
// the connections of the post-execution webhooks are recorded as recipients_notified on the completed
// erasure and named in the subject's message; an access request has none.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { isKind, type MailServer, startMailServer, subjectSideConfig } from '../helpers/subject-side.ts';
import { openStores, seedSubject, type Stores } from '../privacy-requests/rule-support.ts';
import {
  getRequest,
  policyWithWebhooks,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from '../privacy-requests/support.ts';

describe('recipients of an erasure', () => {
  let mail: MailServer;
  let receiver: Receiver;
  let service: TestService;
  let stores: Stores;
  before(async () => {
    mail = await startMailServer();
    receiver = await startReceiver();
    service = await startTestService(subjectSideConfig(mail.port), { worker: true });
    stores = await openStores(service);
    await policyWithWebhooks(
      service,
      receiver,
      'erase_everywhere',
      [{ key: 'before_erase', direction: 'one_way' }],
      [
        { key: 'newsletter', direction: 'one_way' },
        { key: 'billing', direction: 'one_way' },
      ],
    );
    const rule = await service.call('PATCH', '/v1/dsr/policy/erase_everywhere/rule', {
      token: await service.rootToken(),
      json: [{ name: 'Erase', key: 'erase', action_type: 'erasure', targets: ['users.name'] }],
    });
    assert.deepEqual(rule.body.failed, [], rule.text);
  });
  after(async () => {
    await service.stop();
    await receiver.close();
    await mail.close();
  });

  it('a completed erasure lists the connections its post-execution webhooks told, and the mail names them', async () => {
    const subject = await seedSubject(stores, 'erin');
    const created = await submit(service, {
      policy_key: 'erase_everywhere',
      identity: { email: subject.email },
    });
    assert.equal(created.recipients_notified, null, 'not before completion');
    await waitForStatus(service, created.id, 'complete');
    const done = await getRequest(service, created.id);
    assert.deepEqual(done.recipients_notified, ['erase_everywhere_newsletter', 'erase_everywhere_billing']);
    assert.equal(receiver.callsTo('/newsletter').length, 1);

    const message = await mail.waitFor(isKind('your request is complete', subject.email.toLowerCase()));
    assert.match(message.text, /We told these recipients of your data to erase it too:/);
    assert.match(message.text, /- erase_everywhere_newsletter\s+- erase_everywhere_billing/);

    const access = await submit(service, {
      policy_key: 'default_access_policy',
      identity: { email: subject.email },
    });
    await waitForStatus(service, access.id, 'complete');
    assert.equal((await getRequest(service, access.id)).recipients_notified, null);
  });
});
