// `lethe import` as a real child process on a real store: malformed lines are reported with their line
// numbers while the rest is imported (read back through the real API with a CLI-issued key); an import
// killed mid-way (SIGKILL) or stopped by Ctrl-C (SIGINT) continues on re-run without a duplicate; a
// finished import is not repeated; a file changed under its checkpoint is refused unless --restart.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type CliStore, createCliStore, SLOW, waitForOutput } from './support.ts';

const line = (item: unknown) => `${JSON.stringify(item)}\n`;

/** `count` users, each followed by an order referencing it; users carry ids, orders get theirs from the store. */
function usersWithOrders(count: number, prefix: string): string {
  let text = '';
  for (let index = 0; index < count; index += 1) {
    const id = randomUUID();
    text += line({
      id,
      name: 'users',
      attributes: [{ name: 'email', value: `${prefix}${index}@example.com` }],
    });
    text += line({
      name: 'orders',
      references: [{ parentId: id, parentName: 'users' }],
      attributes: [{ name: 'number', value: `${prefix}-${index}` }],
    });
  }
  return text;
}

describe('lethe import', () => {
  let store: CliStore;

  const countEntities = (datastore: string) =>
    store.withDatabase(async (db) => {
      const { rows } = await db.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM entities WHERE datastore = $1',
        [datastore],
      );
      return rows[0]?.count ?? 0;
    });

  before(async () => {
    store = await createCliStore();
    for (const name of ['people', 'killed', 'stopped', 'changed']) {
      const created = await store.run(['datastore', 'create', name]);
      assert.equal(created.code, 0, created.stderr);
    }
  });
  after(() => store.remove());

  it(
    'reports malformed lines with their numbers, imports the rest, links children to earlier parents',
    SLOW,
    async () => {
      const parent = randomUUID();
      const file = path.join(store.dir, 'people.ndjson');
      await writeFile(
        file,
        [
          line({ id: parent, name: 'users', attributes: [{ name: 'email', value: 'Ada@Example.com' }] }),
          line({
            name: 'orders',
            references: [{ parentId: parent, parentName: 'users' }],
            attributes: [{ name: 'address', value: "12 St James's Square" }],
          }),
          '{"name": "users", "attributes": [\n',
          line({ name: 'users', attributes: [{ name: 'bad name', value: 'x' }] }),
          '\n',
          line({ name: 'orders', references: [{ parentId: randomUUID(), parentName: 'users' }] }),
          line({ name: 'orders', references: [{ parentId: parent, parentName: 'accounts' }] }),
          line({ id: parent, name: 'users' }),
          line({
            name: 'users',
            attributes: [
              { name: 'email', value: 'a@b.c' },
              { name: 'email', value: 'd' },
            ],
          }),
          '[1, 2]\n',
          line({ name: 'users', attributes: [{ name: 'email', value: 'grace@example.com' }] }).trimEnd(),
        ].join(''),
      );

      const run = await store.run(['import', '--datastore', 'people', file, '--batch-size', '3']);
      assert.equal(run.code, 1, run.stderr);
      assert.match(
        run.stdout,
        /Imported lines 1 to 11 of .*people\.ndjson into people in [\d.]+ s \(\d+ rows\/s\): 3 created, 7 failed\./,
      );
      const failed = run.stderr
        .split('\n')
        .filter((text) => text.startsWith('line '))
        .map((text) => text.replace(/^line (\d+): .*$/, '$1'));
      assert.deepEqual(failed, ['3', '4', '6', '7', '8', '9', '10']);
      assert.match(run.stderr, /^7 failed lines:$/m);
      assert.match(run.stderr, /^line 3: not valid JSON/m);
      assert.match(
        run.stderr,
        /^line 4: entity\.attributes\.0\.name is not a valid name \(got "bad name"\)/m,
      );
      assert.match(run.stderr, /^line 6: unknown_parent: No entity with id/m);
      assert.match(run.stderr, /^line 7: parent_name_mismatch: /m);
      assert.match(
        run.stderr,
        new RegExp(`^line 8: conflict: An entity with id ${parent} already exists`, 'm'),
      );
      assert.match(run.stderr, /^line 9: the attribute name "email" appears twice/m);
      assert.match(run.stderr, /^line 10: entity must be object/m);

      const key = JSON.parse(
        (await store.run(['api-key', 'create', '--name', 'reader', '--datastore', 'people'])).stdout,
      );
      const api = await store.startApi();
      try {
        const answer = await fetch(`${api.url}/api/entity/get-by-identity`, {
          method: 'POST',
          headers: { 'api-key': key.key, datastore: 'people', 'content-type': 'application/json' },
          body: JSON.stringify(['ada@example.com', 'grace@example.com']),
        });
        assert.equal(answer.status, 200);
        const [ada, grace] = await answer.json();
        assert.deepEqual(
          ada.entities.map((entity: { id: string; name: string }) => [entity.id, entity.name]),
          [[parent, 'users']],
        );
        assert.equal(grace.entities.length, 1);
        const sar = await fetch(`${api.url}/api/user/sar`, {
          method: 'POST',
          headers: { 'api-key': key.key, datastore: 'people', 'content-type': 'application/json' },
          body: JSON.stringify({ entityId: parent, email: 'ada@example.com' }),
        });
        const report = await sar.json();
        const order = report.entities.find((entity: { name: string }) => entity.name === 'orders');
        assert.deepEqual(order.references, [{ parentId: parent, parentName: 'users' }]);
        assert.deepEqual(order.attributes, [{ name: 'address', value: "12 St James's Square" }]);
      } finally {
        await api.stop();
      }
      assert.equal(await countEntities('people'), 3);

      const again = await store.run(['import', '--datastore', 'people', file]);
      assert.equal(again.code, 1, 'the failed lines of the finished import still count');
      assert.match(
        again.stdout,
        /Nothing new to import: lines 1 to 11 of .* were imported into people before\./,
      );
      assert.match(again.stderr, /^7 failed lines:$/m);
      assert.equal(await countEntities('people'), 3);
    },
  );

  it(
    'continues an import killed mid-way (SIGKILL) without duplicating or skipping a line',
    SLOW,
    async () => {
      const file = path.join(store.dir, 'killed.ndjson');
      await writeFile(file, usersWithOrders(600, 'killed'));
      const child = store.start(['import', '--datastore', 'killed', file, '--batch-size', '50']);
      await waitForOutput(child, /^progress: /m);
      const exited = new Promise((resolve) => child.once('close', (_code, signal) => resolve(signal)));
      child.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');

      const checkpoint = await store.withDatabase(async (db) => {
        const { rows } = await db.query<{ next_line: number; created: number; entities: number }>(
          `SELECT next_line, created, (SELECT count(*)::int FROM entities WHERE datastore = 'killed') AS entities
           FROM entity_imports WHERE datastore = 'killed'`,
        );
        return rows[0];
      });
      assert.ok(checkpoint, 'the checkpoint of the committed batches exists');
      assert.ok(
        checkpoint.next_line > 1 && checkpoint.next_line <= 1200,
        `stopped at ${checkpoint.next_line}`,
      );
      assert.equal(checkpoint.entities, checkpoint.next_line - 1, 'every committed line, and only those');
      assert.equal(checkpoint.created, checkpoint.entities);

      const resumed = await store.run(['import', '--datastore', 'killed', file, '--batch-size', '50']);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(resumed.stderr, '', 'no line failed: a repeated user line would be a conflict');
      if (checkpoint.next_line <= 1200) {
        assert.match(
          resumed.stdout,
          new RegExp(
            `Resumed at line ${checkpoint.next_line}: imported lines ${checkpoint.next_line} to 1200`,
          ),
        );
      }
      assert.match(resumed.stdout, /All runs of this import: 1200 created, 0 failed\./);
      assert.equal(await countEntities('killed'), 1200);
    },
  );

  it('stops after the current batch on Ctrl-C (exit 130) and continues on re-run', SLOW, async () => {
    const file = path.join(store.dir, 'stopped.ndjson');
    await writeFile(file, usersWithOrders(400, 'stopped'));
    const child = store.start(['import', '--datastore', 'stopped', file, '--batch-size', '10']);
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    await waitForOutput(child, /^progress: /m);
    const exited = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGINT');
    assert.equal(await exited, 130);
    const stoppedAt = /Stopped after line (\d+); run the same command again to continue at line (\d+)\./.exec(
      stdout,
    );
    assert.ok(stoppedAt, stdout);
    const next = Number(stoppedAt[2]);
    assert.equal(await countEntities('stopped'), next - 1);

    const resumed = await store.run(['import', '--datastore', 'stopped', file, '--batch-size', '10']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, new RegExp(`Resumed at line ${next}: imported lines ${next} to 800`));
    assert.equal(await countEntities('stopped'), 800);
  });

  it(
    'imports lines appended later, refuses a file changed under its checkpoint, and --restart starts over',
    SLOW,
    async () => {
      const file = path.join(store.dir, 'changed.ndjson');
      // The third line (1.2 MB) spans the reader's 1 MiB chunks: its bytes must all count in the checkpoint.
      const largeDocument = line({
        name: 'documents',
        attributes: Array.from({ length: 20 }, (_, index) => ({
          name: `page${index}`,
          value: 'x'.repeat(60_000),
        })),
      });
      await writeFile(file, usersWithOrders(1, 'first') + largeDocument + usersWithOrders(1, 'second'));
      const first = await store.run(['import', '--datastore', 'changed', file]);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /^Imported lines 1 to 5 .*: 5 created, 0 failed\./m);
      await appendFile(file, usersWithOrders(1, 'appended'));
      const appended = await store.run(['import', '--datastore', 'changed', file]);
      assert.equal(appended.code, 0, appended.stderr);
      assert.match(appended.stdout, /Resumed at line 6: imported lines 6 to 7 .*: 2 created, 0 failed\./);
      assert.equal(await countEntities('changed'), 7);

      await writeFile(file, usersWithOrders(4, 'rewritten'));
      const refused = await store.run(['import', '--datastore', 'changed', file]);
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        /changed since its lines 1 to 7 were imported into changed; pass --restart/,
      );
      assert.equal(await countEntities('changed'), 7);

      const restarted = await store.run(['import', '--datastore', 'changed', file, '--restart']);
      assert.equal(restarted.code, 0, restarted.stderr);
      assert.match(restarted.stdout, /^Imported lines 1 to 8 .*: 8 created, 0 failed\./m);
      assert.equal(await countEntities('changed'), 15);
    },
  );

  it('refuses a missing file or datastore with exit 1, changing nothing', SLOW, async () => {
    const missingFile = await store.run([
      'import',
      '--datastore',
      'people',
      path.join(store.dir, 'nope.ndjson'),
    ]);
    assert.equal(missingFile.code, 1);
    assert.match(missingFile.stderr, /Cannot read .*nope\.ndjson: no such file/);
    const file = path.join(store.dir, 'orphan.ndjson');
    await writeFile(file, usersWithOrders(1, 'orphan'));
    const missingStore = await store.run(['import', '--datastore', 'ghost', file]);
    assert.equal(missingStore.code, 1);
    assert.match(missingStore.stderr, /No datastore named ghost; create it first/);
    const imports = await store.withDatabase(
      async (db) => (await db.query(`SELECT 1 FROM entity_imports WHERE datastore = 'ghost'`)).rowCount,
    );
    assert.equal(imports, 0);
  });
});
