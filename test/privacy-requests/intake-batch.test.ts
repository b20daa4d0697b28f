// Intake admits a batch in a fixed number of statements, whatever its size (issue 29: an operator's POST
// carries up to 50 requests): the identities of an unchecked batch are locked, indexed and counted for
// excess together, and the batch's policies are read once to decide which wait for an operator. What
// admission decides stays per request: each one's identity index, the excess flag of the third completed
// access request within 12 months, a public erasure waiting for a person.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Queryable } from '../../src/db/database.ts';
import { admit } from '../../src/privacy-requests/intake.ts';
import type { RequestRow } from '../../src/privacy-requests/repository.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { recordingStatements } from '../helpers/statements.ts';
import { engineConfig } from './support.ts';

describe('intake of a batch', () => {
  let service: TestService;
  let root: string;
  before(async () => {
    service = await startTestService({ ...engineConfig, requireManualApproval: true });
    root = await service.rootToken();
  });
  after(async () => {
    await service.stop();
  });

  const create = async (items: { policy: string; email: string }[]): Promise<string[]> => {
    const answer = await service.call('POST', '/v1/privacy-request', {
      token: root,
      json: items.map((item) => ({ policy_key: item.policy, identity: { email: item.email } })),
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body.failed, []);
    return (answer.body.succeeded as { id: string }[]).map((item) => item.id);
  };

  /** Admits the requests of `ids` again, from a clean slate, and answers the statements it sent. */
  const admitAgain = async (tx: Queryable, ids: string[]) => {
    const { rows } = await tx.query<RequestRow>(
      `UPDATE privacy_requests SET identity_index = NULL, excessive = false
        WHERE id = ANY($1::text[]) RETURNING *`,
      [ids],
    );
    const recorded = recordingStatements(tx);
    await admit(recorded.queryable, service.services, rows);
    return recorded.statements.length;
  };

  it('sends as many statements for twelve requests as for two, and still flags each excessive one', async () => {
    const often = 'often.batch@example.com';
    const done = await create([
      { policy: 'default_access_policy', email: often },
      { policy: 'default_access_policy', email: often },
    ]);
    await service.services.db.query(
      `UPDATE privacy_requests SET status = 'complete', finished_processing_at = now() WHERE id = ANY($1::text[])`,
      [done],
    );
    const small = await create([
      { policy: 'default_access_policy', email: often },
      { policy: 'default_erasure_policy', email: 'small.b@example.com' },
    ]);
    const large = await create([
      { policy: 'default_access_policy', email: often },
      ...Array.from({ length: 10 }, (_, index) => ({
        policy: index % 2 === 0 ? 'default_access_policy' : 'default_erasure_policy',
        email: `large.${index}@example.com`,
      })),
      { policy: 'default_erasure_policy', email: often.toUpperCase() },
    ]);

    const [smallCount, largeCount, after] = await service.services.db.transaction(async (tx) => [
      await admitAgain(tx, small),
      await admitAgain(tx, large),
      (
        await tx.query<{ id: string; indexed: boolean; excessive: boolean; status: string }>(
          `SELECT id, identity_index IS NOT NULL AS indexed, excessive, status
             FROM privacy_requests WHERE id = ANY($1::text[])`,
          [large],
        )
      ).rows,
    ]);
    assert.equal(largeCount, smallCount, 'the statements do not grow with the batch');

    const byId = new Map(
      (after as { id: string; indexed: boolean; excessive: boolean; status: string }[]).map((row) => [
        row.id,
        row,
      ]),
    );
    assert.equal(byId.size, large.length);
    for (const [position, id] of large.entries()) {
      const row = byId.get(id);
      assert.equal(row?.indexed, true, `request ${position} has its identity index`);
      assert.equal(row?.status, 'pending');
      const ofOften = position === 0 || position === large.length - 1;
      assert.equal(row?.excessive, ofOften, `request ${position} excessive: ${String(ofOften)}`);
    }
  });
});
