// A request of a policy that erases nothing completes in one statement that also stores its download link
// and its completion message (issue 29: it was a transaction of six). What must hold: the message and the
// link exist if and only if the request completed (a lost compare-and-set stores neither); the message
// names the link whose hash is stored, with the expiry the link has; an erasure policy's completion still
// carries its counts (it keeps its transaction).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { accessDeliveryHooks } from '../../src/access-delivery/hooks.ts';
import { openContent } from '../../src/outbox/content.ts';
import { preparedMoveRepository } from '../../src/privacy-requests/prepared-move-repository.ts';
import type { RequestRow } from '../../src/privacy-requests/repository.ts';
import { loadPolicyEmbed } from '../../src/privacy-requests/view.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { engineConfig, submit, waitForStatus } from './support.ts';

describe('completion in one statement', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService(engineConfig, { worker: true });
  });
  after(async () => {
    await service.stop();
  });

  const completionMessages = async (id: string) =>
    (
      await service.services.db.query<{ id: string; kind: string; content_sealed: Buffer }>(
        `SELECT id, kind, content_sealed FROM outbox_messages WHERE privacy_request_id = $1 AND kind = 'completed'`,
        [id],
      )
    ).rows.map((row) => openContent(service.services.keyring, row.id, row.content_sealed));
  const links = async (id: string) =>
    (
      await service.services.db.query<{ token_hash: Buffer; expires_at: Date }>(
        'SELECT token_hash, expires_at FROM access_package_links WHERE privacy_request_id = $1',
        [id],
      )
    ).rows;

  it('stores the link and the message that names it when an access request completes', async () => {
    const started = Date.now();
    const request = await submit(service, {
      policy_key: 'default_access_policy',
      identity: { email: 'one.statement@example.com' },
    });
    await waitForStatus(service, request.id, 'complete');
    const [message, ...others] = await completionMessages(request.id);
    assert.ok(message, 'a completion message');
    assert.deepEqual(others, []);
    assert.equal(message.to, 'one.statement@example.com');
    const [link, ...moreLinks] = await links(request.id);
    assert.ok(link, 'a download link');
    assert.deepEqual(moreLinks, []);
    const text = message.text ?? '';
    const token = /download\/([A-Za-z0-9_-]{43})/.exec(text)?.[1];
    assert.ok(token, `the message carries a download token: ${text}`);
    assert.deepEqual(link.token_hash, createHash('sha256').update(token).digest());
    const ttl = service.config.accessPackageTtlSeconds * 1000;
    assert.ok(link.expires_at.getTime() >= started + ttl && link.expires_at.getTime() <= Date.now() + ttl);
  });

  it('stores neither when the completing compare-and-set loses', async () => {
    const answer = await service.call('POST', '/v1/privacy-request', {
      token: await service.rootToken(),
      json: [{ policy_key: 'default_access_policy', identity: { email: 'lost.race@example.com' } }],
    });
    const id = answer.body.succeeded[0].id as string;
    await waitForStatus(service, id, 'complete');
    const { rows } = await service.services.db.query<RequestRow>(
      'SELECT * FROM privacy_requests WHERE id = $1',
      [id],
    );
    const row = rows[0] as RequestRow;
    const policy = await loadPolicyEmbed(service.services.db, row.policy_id);
    const share = await accessDeliveryHooks.completion?.prepare(service.services.db, service.services, {
      row,
      policy,
    });
    assert.ok(share, 'something to store');
    const moved = await preparedMoveRepository.completeWith(
      service.services.db,
      {
        id,
        from: 'in_processing',
        to: 'complete',
        atStep: row.next_step,
        entries: [
          { kind: 'transition', fromStatus: 'in_processing', toStatus: 'complete', message: 'again' },
        ],
      },
      [share],
    );
    assert.equal(moved, undefined, 'the request was no longer in_processing');
    assert.equal((await completionMessages(id)).length, 1, 'only the first completion told the subject');
    assert.equal((await links(id)).length, 1);
  });

  it("still tells an erasure request's subject what was erased", async () => {
    const request = await submit(service, {
      policy_key: 'default_erasure_policy',
      identity: { email: 'erased.one@example.com' },
    });
    await waitForStatus(service, request.id, 'complete');
    const [message] = await completionMessages(request.id);
    assert.ok(message, 'a completion message');
    assert.deepEqual(await links(request.id), [], 'no download link for an erasure');
  });
});
