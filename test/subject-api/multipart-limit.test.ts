// Regression: a multipart body on an endpoint that takes no file was parsed into up to 20 fields of 1 MiB
// each, past the 1 MiB body limit every JSON or urlencoded body has. Its fields are now bound by that limit
// in total (413), and a field the parser cut short is refused rather than read truncated.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { type ApiClient, apiClient, rowCounts } from '../helpers/area-b.ts';

describe('multipart bodies on endpoints without files', () => {
  let service: TestService;
  let api: ApiClient;
  before(async () => {
    service = await startTestService();
    api = await apiClient(service, 'forms');
  });
  after(() => service.stop());

  it('are bound by the 1 MiB body limit in total: 413, nothing stored', async () => {
    const before = await rowCounts(service, 'forms');
    const items = JSON.stringify([
      { name: 'users', attributes: [{ name: 'note', value: 'n'.repeat(500_000) }] },
    ]);
    const spread = new FormData();
    for (let field = 0; field < 4; field += 1) spread.append(`padding${field}`, 'p'.repeat(400_000));
    spread.append('entities', items);
    const answer = await api.call('/api/entity/create', { body: spread });
    assert.equal(answer.status, 413, answer.text.slice(0, 200));
    assert.match(answer.text, /larger than 1048576 bytes in total/);

    const single = new FormData();
    single.append('ids', JSON.stringify([randomUUID(), 'x'.repeat(1_200_000)]));
    const truncated = await api.call('/api/entity/get-by-id', { body: single });
    assert.equal(truncated.status, 413, truncated.text.slice(0, 200));
    assert.deepEqual(await rowCounts(service, 'forms'), before);

    const small = new FormData();
    small.append('entities', JSON.stringify([{ name: 'users' }]));
    assert.equal((await api.call('/api/entity/create', { body: small })).status, 203);
  });
});
