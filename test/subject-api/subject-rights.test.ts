import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { startTestService, type TestService } from '../helpers/service.ts';
import { type ApiClient, apiClient, rowCounts } from '../helpers/area-b.ts';

interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

describe('Area B subject rights: delete, forget, SAR', () => {
  let service: TestService;
  let api: ApiClient;
  const mails: ReceivedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });

  before(async () => {
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as AddressInfo;
    service = await startTestService({ smtpUrl: `smtp://127.0.0.1:${port}`, smtpFrom: 'privacy@lethe.test' });
    api = await apiClient(service, 'crm');
  });
  after(async () => {
    await service.stop();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  /** A user with two orders (one with an invoice line) and a file. */
  async function family() {
    const userId = randomUUID();
    const orderId = randomUUID();
    const secondOrderId = randomUUID();
    const lineId = randomUUID();
    const created = await api.call('/api/entity/create', {
      json: [
        {
          id: userId,
          name: 'users',
          attributes: [
            { name: 'email', value: `${userId}@example.com` },
            { name: 'address', value: 'user address' },
          ],
        },
        {
          id: orderId,
          name: 'orders',
          references: [{ parentId: userId, parentName: 'users' }],
          attributes: [
            { name: 'address', value: 'ship here' },
            { name: 'total', value: '12.50' },
          ],
        },
        {
          id: secondOrderId,
          name: 'orders',
          references: [{ parentId: userId, parentName: 'users' }],
          attributes: [{ name: 'address', value: 'and here' }],
        },
        {
          id: lineId,
          name: 'lines',
          references: [{ parentId: orderId, parentName: 'orders' }],
          attributes: [{ name: 'address', value: 'line address' }],
        },
      ],
    });
    assert.ok(
      created.body.every((item: { error: unknown }) => item.error === null),
      created.text,
    );
    const form = new FormData();
    form.append('attribute', JSON.stringify({ entityId: orderId, name: 'receipt', value: 'receipt.pdf' }));
    form.append('file', new Blob([Buffer.alloc(300 * 1024, 9)], { type: 'application/pdf' }), 'r.pdf');
    assert.equal((await api.call('/api/file/upload', { body: form })).status, 200);
    return { userId, orderId, secondOrderId, lineId };
  }

  it('user/delete removes <table>.<attribute> from the entity and its descendants of that table', async () => {
    const { userId, orderId, secondOrderId, lineId } = await family();
    const answer = await api.call('/api/user/delete', {
      body: new URLSearchParams({ entityId: userId, attributeNames: 'orders.address, lines.address' }),
    });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, {
      entityId: userId,
      attributeNames: ['orders.address', 'lines.address'],
      deleted: 3,
    });
    const read = await api.call('/api/entity/get-by-id', { json: [userId, orderId, secondOrderId, lineId] });
    const names = read.body.map((entity: { attributes: { name: string }[] }) =>
      entity.attributes.map((attribute) => attribute.name),
    );
    assert.deepEqual(names, [['address', 'email'], ['total'], [], []]);
    const viaGet = await api.call(`/api/user/delete?entityId=${userId}&attributeNames=users.address`, {
      method: 'GET',
    });
    assert.equal(viaGet.status, 200);
    assert.equal(viaGet.body.deleted, 1);
    const viaJsonList = await api.call('/api/user/delete', {
      json: { entityId: userId, attributeNames: ['orders.receipt'] },
    });
    assert.equal(viaJsonList.body.deleted, 1, 'a file attribute is an attribute too');
  });

  it('user/delete answers 400 naming a malformed attribute name and 404 naming the missing entity', async () => {
    const { userId } = await family();
    const before = await rowCounts(service, 'crm');
    for (const attributeNames of [
      'email',
      'users.',
      '.email',
      "users.email'--",
      'users.email,"orders".x',
      'a.b.c',
      ' , ',
    ]) {
      const answer = await api.call('/api/user/delete', { json: { entityId: userId, attributeNames } });
      assert.equal(answer.status, 400, attributeNames);
      assert.match(answer.headers.get('content-type') ?? '', /^text\/plain/);
      if (attributeNames.trim() !== ',') {
        assert.match(answer.text, /is not of the form <table>\.<attribute>\./);
      }
    }
    const named = await api.call('/api/user/delete', {
      json: { entityId: userId, attributeNames: 'users.email,bad' },
    });
    assert.equal(named.text, 'The attribute name "bad" is not of the form <table>.<attribute>.');
    const unknownId = randomUUID();
    const missing = await api.call('/api/user/delete', {
      json: { entityId: unknownId, attributeNames: 'users.email' },
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.text, `No entity with id "${unknownId}" in the datastore crm.`);
    for (const json of [
      { attributeNames: 'users.email' },
      { entityId: userId },
      { entityId: userId, attributeNames: 'users.email', x: 1 },
    ]) {
      assert.equal((await api.call('/api/user/delete', { json })).status, 400, JSON.stringify(json));
    }
    assert.deepEqual(await rowCounts(service, 'crm'), before);
  });

  it('forget erases the entity, every descendant, attributes, files, chunks and index entries', async () => {
    const keep = await family();
    const before = await rowCounts(service, 'crm');
    const { userId, orderId, secondOrderId, lineId } = await family();
    const answer = await api.call('/api/user/forget', { json: { entityId: userId } });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { entityId: userId, erased: { entities: 4, attributes: 6, files: 1 } });
    assert.deepEqual(await rowCounts(service, 'crm'), before, 'only the other family is left');
    const ids = [userId, orderId, secondOrderId, lineId];
    const leftovers = await service.services.db.query(
      `SELECT 'entity' FROM entities WHERE id = ANY($1::uuid[])
       UNION ALL SELECT 'attribute' FROM entity_attributes WHERE entity_id = ANY($1::uuid[])
       UNION ALL SELECT 'reference' FROM entity_references WHERE child_id = ANY($1::uuid[]) OR parent_id = ANY($1::uuid[])
       UNION ALL SELECT 'file' FROM entity_files WHERE entity_id = ANY($1::uuid[])
       UNION ALL SELECT 'chunk' FROM entity_file_chunks c LEFT JOIN entity_files f ON f.id = c.file_id WHERE f.id IS NULL`,
      [ids],
    );
    assert.deepEqual(leftovers.rows, []);
    const identity = await api.call('/api/entity/get-by-identity', { json: [`${userId}@example.com`] });
    assert.deepEqual(identity.body[0].entities, []);
    const still = await api.call('/api/entity/get-by-id', { json: [keep.userId] });
    assert.equal(still.body[0].error, null);

    const again = await api.call('/api/user/forget', { method: 'GET', json: { entityId: userId } });
    assert.equal(again.status, 404);
    assert.equal(again.text, `No entity with id "${userId}" in the datastore crm.`);
    const garbage = await api.call(`/api/user/forget?entityId=${encodeURIComponent("1' OR '1'='1")}`, {
      method: 'GET',
    });
    assert.equal(garbage.status, 404);
    assert.match(garbage.text, /"1' OR '1'='1"/);
    assert.equal((await api.call('/api/user/forget', { json: {} })).status, 400);
    assert.equal((await api.call('/api/user/forget', { json: [userId] })).status, 400);
    assert.deepEqual(await rowCounts(service, 'crm'), before);

    const audit = await service.call('GET', `/v1/audit-log?action=user.forget&entity_id=${lineId}`, {
      token: await service.rootToken(),
    });
    assert.equal(audit.body.total, 1);
    assert.deepEqual(audit.body.items[0].details, { entities: 4, attributes: 6, files: 1 });
  });

  it('sar answers the tree as JSON, mails it to the recipient and audits the sealed recipient', async () => {
    const { userId, orderId, lineId } = await family();
    const sent = mails.length;
    const answer = await api.call('/api/user/sar', {
      body: new URLSearchParams({ entityId: userId, email: 'subject@example.net' }),
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.entityId, userId);
    assert.equal(answer.body.email, 'subject@example.net');
    assert.equal(answer.body.mailed, true);
    assert.deepEqual(answer.body.entities.map((entity: { id: string }) => entity.id).slice(0, 1), [userId]);
    assert.equal(answer.body.entities.length, 4);
    const order = answer.body.entities.find((entity: { id: string }) => entity.id === orderId);
    assert.deepEqual(order.files, [
      { name: 'receipt', fileName: 'receipt.pdf', contentType: 'application/pdf', size: 300 * 1024 },
    ]);
    assert.ok(answer.body.entities.some((entity: { id: string }) => entity.id === lineId));

    assert.equal(mails.length, sent + 1);
    const mail = mails.at(-1) as ReceivedMail;
    assert.deepEqual(mail.to, ['subject@example.net']);
    assert.equal(mail.from, 'privacy@lethe.test');
    assert.match(mail.raw, /subject-access-report\.json/);
    const attachment = /Content-Transfer-Encoding: base64\r?\n(?:.*\r?\n)*?\r?\n([A-Za-z0-9+/=\r\n]+)/.exec(
      mail.raw.slice(mail.raw.indexOf('subject-access-report.json')),
    );
    const report = JSON.parse(
      Buffer.from((attachment?.[1] ?? '').replace(/\s/g, ''), 'base64').toString('utf8'),
    );
    assert.equal(report.entityId, userId);
    assert.equal(report.entities.length, 4);

    const audit = await service.call('GET', `/v1/audit-log?action=user.sar&entity_id=${userId}`, {
      token: await service.rootToken(),
    });
    assert.equal(audit.body.items[0].recipient, 'subject@example.net');
    assert.equal(audit.body.items[0].details.mailed, true);
    const raw = await service.services.db.query<{ dump: string }>(
      "SELECT string_agg(t::text, ' ') AS dump FROM audit_log t",
    );
    assert.ok(!(raw.rows[0]?.dump ?? '').includes('subject@example.net'));
  });

  it('sar answers 404 naming the entity and 400 for a missing or malformed email, mailing nothing', async () => {
    const { userId } = await family();
    const sent = mails.length;
    const unknown = randomUUID();
    const missing = await api.call('/api/user/sar', { json: { entityId: unknown, email: 'a@example.com' } });
    assert.equal(missing.status, 404);
    assert.match(missing.text, new RegExp(unknown));
    for (const json of [
      { entityId: userId },
      { entityId: userId, email: 'not-an-email' },
      { email: 'a@example.com' },
    ]) {
      const answer = await api.call('/api/user/sar', { json });
      assert.equal(answer.status, 400, JSON.stringify(json));
    }
    const viaQuery = await api.call(`/api/user/sar?entityId=${userId}&email=q%40example.com`, {
      method: 'GET',
    });
    assert.equal(viaQuery.status, 200);
    assert.equal(mails.length, sent + 1);
  });
});
