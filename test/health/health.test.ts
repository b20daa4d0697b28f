// GET /health (src/health/routes.ts): the store's kind and reachability and the queue's state. Its 503
// during a database outage is test/chaos/database-outage.chaos.ts's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('GET /health', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.stop());

  it('reports health with the store kind and version', async () => {
    const answer = await service.call('GET', '/health');
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, 'ok');
    // Test services reach the test server through a URL, as with DATABASE_URL.
    assert.equal(answer.body.database.kind, 'postgres');
    assert.equal(answer.body.database.reachable, true);
    assert.equal(answer.body.queue.running, true);
  });
});
