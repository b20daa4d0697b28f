// A receiver's Retry-After (RFC 9110 §10.2.3), read by the callback client for a 429 or a 503: seconds or
// an HTTP date, anything else ignored. The date form is read against the `now` given, never the clock.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { retryAfterSeconds } from '../../src/callbacks/client.ts';

const NOW = Date.UTC(2026, 10, 29, 9, 0, 0);

it('reads delay-seconds and HTTP dates, and ignores what is neither', () => {
  assert.equal(retryAfterSeconds('120', NOW), 120);
  assert.equal(retryAfterSeconds(' 0 ', NOW), 0);
  assert.equal(retryAfterSeconds('Sun, 29 Nov 2026 09:01:30 GMT', NOW), 90);
  assert.equal(retryAfterSeconds('29 Nov 2026 09:01:30', NOW), undefined, 'not the HTTP date form');
  assert.equal(retryAfterSeconds('Sun, 29 Nov 2026 08:00:00 GMT', NOW), 0, 'a date passed waits nothing');
  assert.equal(retryAfterSeconds(['30', '60'], NOW), 30);
  for (const unreadable of [undefined, '', 'soon', '-5', '1.5', '12345678901'])
    assert.equal(retryAfterSeconds(unreadable, NOW), undefined, String(unreadable));
});
