// GET /v1/event-type (docs/events.md): the catalogue of src/events/catalog.ts as the console and clients read
// it, in its order, with each event's title and the CloudEvents type its deliveries really carry; guarded by
// the subscriptions' read scope.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EVENT_TITLES, EVENT_TYPES } from '../../src/events/catalog.ts';
import { cloudEvent } from '../../src/events/render.ts';
import { scopedToken } from '../connections/support.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('the event catalogue route', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.stop());

  it("answers the catalogue's events in order, with their titles and CloudEvents types", async () => {
    const answer = await service.call('GET', '/v1/event-type', {
      token: await scopedToken(service, ['event-subscription:read']),
    });
    assert.equal(answer.status, 200, answer.text);
    const items = answer.body.items as { type: string; title: string; cloudevents_type: string }[];
    assert.deepEqual(
      items.map((item) => item.type),
      [...EVENT_TYPES],
    );
    assert.deepEqual(
      items.map((item) => item.title),
      EVENT_TYPES.map((type) => EVENT_TITLES[type]),
    );
    // The type a delivery in the cloudevents format carries, as the renderer writes it.
    const delivered = EVENT_TYPES.map(
      (type) =>
        cloudEvent(service.config, {
          id: 'msg_1',
          event_id: 'evt_1',
          event_type: type,
          subject: 'pri_1',
          privacy_request_id: 'pri_1',
          occurred_at: new Date('2026-11-29T09:00:00.000Z'),
          data: {},
        }).type,
    );
    assert.deepEqual(
      items.map((item) => item.cloudevents_type),
      delivered,
    );
    assert.equal(items[0]?.cloudevents_type, 'dev.lethe.privacy_request.received');
  });

  it('needs a token (401) holding event-subscription:read (403)', async () => {
    assert.equal((await service.call('GET', '/v1/event-type')).status, 401);
    const withoutScope = await scopedToken(service, ['policy:read']);
    const refused = await service.call('GET', '/v1/event-type', { token: withoutScope });
    assert.equal(refused.status, 403, refused.text);
  });
});
