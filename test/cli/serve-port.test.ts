// `lethe serve` on a port another process holds (the README's walk-through started twice) stops with a
// sentence that says what to do, not a stack trace.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type CliStore, createCliStore, SLOW } from './support.ts';

describe('lethe serve on a port in use', () => {
  let store: CliStore;
  const holder = createServer();
  before(async () => {
    store = await createCliStore();
    holder.listen(0, '127.0.0.1');
    await once(holder, 'listening');
  });
  after(async () => {
    holder.close();
    await store?.remove();
  });

  it('says the address is in use and how to go on', SLOW, async () => {
    const { port } = holder.address() as AddressInfo;
    store.env.PORT = String(port);
    const run = await store.run(['serve']);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(
      run.stderr.trim(),
      `lethe: 127.0.0.1:${port} is already in use: is another Lethe running there? Stop it (Ctrl-C in its terminal) or start this one with another PORT.`,
    );
    assert.ok(!run.stderr.includes('    at '), 'no stack trace');
  });
});
