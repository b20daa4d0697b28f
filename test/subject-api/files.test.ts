import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { type ApiClient, apiClient, rowCounts } from '../helpers/area-b.ts';

const MiB = 1024 * 1024;
/** Lower than the 25 MiB default so the refused upload writes (and erases) few chunks; same code path. */
const LIMIT = 4 * MiB;

describe('Area B files: streamed upload and download', () => {
  let service: TestService;
  let api: ApiClient;
  let userId: string;
  before(async () => {
    service = await startTestService({ maxFileBytes: LIMIT });
    api = await apiClient(service, 'docs');
    const created = await api.call('/api/entity/create', { json: [{ name: 'users' }] });
    userId = created.body[0].id;
  });
  after(() => service.stop());

  const uploadForm = (
    attribute: unknown,
    bytes: Buffer,
    fileName = 'upload.bin',
    type = 'application/octet-stream',
  ) => {
    const form = new FormData();
    form.append('attribute', typeof attribute === 'string' ? attribute : JSON.stringify(attribute));
    form.append('file', new Blob([Uint8Array.from(bytes)], { type }), fileName);
    return form;
  };

  /** A multipart body streamed from a generator: the file part is `size` bytes, never allocated whole. */
  function streamedMultipart(
    attribute: unknown,
    size: number,
  ): { body: ReadableStream<Uint8Array>; type: string } {
    const boundary = `lethe-${randomUUID()}`;
    const piece = Buffer.alloc(64 * 1024, 0x61);
    async function* parts() {
      yield Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="attribute"\r\n\r\n${JSON.stringify(attribute)}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      );
      for (let sent = 0; sent < size; sent += piece.length)
        yield piece.subarray(0, Math.min(piece.length, size - sent));
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    }
    const iterator = parts();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
    });
    return { body, type: `multipart/form-data; boundary=${boundary}` };
  }

  it('uploads a multi-chunk file and downloads the same bytes with type and Content-Disposition', async () => {
    const bytes = randomBytes(700_001);
    const uploaded = await api.call('/api/file/upload', {
      body: uploadForm(
        { entityId: userId, name: 'passport', value: 'Pässe & scans (1).pdf' },
        bytes,
        'x',
        'application/pdf',
      ),
    });
    assert.equal(uploaded.status, 200, uploaded.text);
    assert.deepEqual(uploaded.body, {
      entityId: userId,
      name: 'passport',
      value: 'Pässe & scans (1).pdf',
      contentType: 'application/pdf',
      size: 700_001,
    });
    const chunks = await service.services.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM entity_file_chunks c JOIN entity_files f ON f.id = c.file_id WHERE f.entity_id = $1',
      [userId],
    );
    assert.equal(chunks.rows[0]?.n, 3, '256 KiB chunks');

    for (const method of ['GET', 'POST']) {
      const response = await fetch(
        `${service.url}/api/file/download?entityID=${userId}&attributeName=passport`,
        { method, headers: { 'api-key': api.key, datastore: 'docs' } },
      );
      assert.equal(response.status, 200, method);
      assert.equal(response.headers.get('content-type'), 'application/pdf');
      assert.equal(response.headers.get('content-length'), '700001');
      assert.equal(
        response.headers.get('content-disposition'),
        `attachment; filename="P?sse & scans (1).pdf"; filename*=UTF-8''P%C3%A4sse%20%26%20scans%20%281%29.pdf`,
      );
      const received = Buffer.from(await response.arrayBuffer());
      assert.equal(
        createHash('sha256').update(received).digest('hex'),
        createHash('sha256').update(bytes).digest('hex'),
      );
    }
    const viaJson = await api.call('/api/file/download', {
      json: { entityId: userId, attributeName: 'passport' },
    });
    assert.equal(viaJson.status, 200);
    const entity = await api.call('/api/entity/get-by-id', { json: [userId] });
    assert.deepEqual(entity.body[0].files, [
      { name: 'passport', fileName: 'Pässe & scans (1).pdf', contentType: 'application/pdf', size: 700_001 },
    ]);
  });

  it('fails the download of a file whose chunk was altered at rest instead of sending its bytes', async () => {
    const uploaded = await api.call('/api/file/upload', {
      body: uploadForm({ entityId: userId, name: 'altered' }, randomBytes(600_000)),
    });
    assert.equal(uploaded.status, 200, uploaded.text);
    // A byte in the seventh 16 KiB slice of the second chunk: the slices before it open, the tag does not.
    await service.services.db.query(
      `UPDATE entity_file_chunks c SET data_sealed = set_byte(data_sealed, 100000, get_byte(data_sealed, 100000) # 1)
         FROM entity_files f WHERE f.id = c.file_id AND f.entity_id = $1 AND f.attribute_name = 'altered'
          AND c.chunk_no = 1`,
      [userId],
    );
    const response = await fetch(
      `${service.url}/api/file/download?entityID=${userId}&attributeName=altered`,
      {
        headers: { 'api-key': api.key, datastore: 'docs' },
      },
    );
    const body = await response.arrayBuffer().then(
      (received) => received.byteLength,
      (error: unknown) => error,
    );
    assert.ok(
      body instanceof Error || response.status >= 500,
      `the download answered ${response.status} with ${String(body)} bytes`,
    );
  });

  it('replaces the file of an attribute, takes the file name from the part, and accepts the file first', async () => {
    const first = await api.call('/api/file/upload', {
      body: uploadForm({ entityId: userId, name: 'avatar' }, Buffer.from('first'), 'me.png', 'image/png'),
    });
    assert.equal(first.status, 200);
    assert.equal(first.body.value, 'me.png');
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('second version')], { type: 'text/plain' }), 'me-too.txt');
    form.append('attribute', JSON.stringify({ entityId: userId, name: 'avatar', value: 'replaced.txt' }));
    const second = await api.call('/api/file/upload', { body: form });
    assert.equal(second.status, 200, second.text);
    const download = await api.call(`/api/file/download?entityID=${userId}&attributeName=avatar`, {
      method: 'GET',
    });
    assert.equal(download.text, 'second version');
    assert.match(download.headers.get('content-disposition') ?? '', /^attachment; filename=replaced\.txt$/);
    const viaGet = await api.call('/api/file/upload', {
      method: 'GET',
      body: uploadForm(
        { entityId: userId, name: 'avatar', value: 'third.txt' },
        Buffer.from('third'),
        'x.txt',
        'text/plain',
      ),
    });
    assert.equal(viaGet.status, 200, viaGet.text);
    const third = await api.call('/api/file/download', {
      method: 'GET',
      json: { entityID: userId, attributeName: 'avatar' },
    });
    assert.equal(third.text, 'third');
    const files = await service.services.db.query(
      "SELECT 1 FROM entity_files WHERE entity_id = $1 AND attribute_name = 'avatar'",
      [userId],
    );
    assert.equal(files.rows.length, 1);
  });

  it('asks V8 for a minor GC every 512 KiB streamed when Lethe runs with --expose-gc', async () => {
    const exposed = globalThis.gc;
    const requested: unknown[] = [];
    globalThis.gc = ((options?: unknown) => {
      requested.push(options);
    }) as typeof globalThis.gc;
    try {
      const uploaded = await api.call('/api/file/upload', {
        body: uploadForm({ entityId: userId, name: 'collected' }, randomBytes(2 * MiB)),
      });
      assert.equal(uploaded.status, 200, uploaded.text);
      assert.equal(requested.length, 4, 'upload');
      const download = await api.call(`/api/file/download?entityID=${userId}&attributeName=collected`, {
        method: 'GET',
      });
      assert.equal(download.status, 200);
      assert.equal(requested.length, 8, 'download');
      assert.deepEqual(
        new Set(requested.map((options) => JSON.stringify(options))),
        new Set(['{"type":"minor"}']),
      );
    } finally {
      globalThis.gc = exposed;
    }
  });

  it('limits files to 25 MiB unless LETHE_MAX_FILE_BYTES says otherwise', () => {
    assert.equal(loadConfig({}).maxFileBytes, 25 * MiB);
    assert.equal(loadConfig({ LETHE_MAX_FILE_BYTES: '1000' }).maxFileBytes, 1000);
  });

  it('refuses a 30 MiB upload streamed past the limit with 413 and keeps nothing', async () => {
    const before = await rowCounts(service, 'docs');
    const { body, type } = streamedMultipart({ entityId: userId, name: 'huge', value: 'huge.bin' }, 30 * MiB);
    const response = await fetch(`${service.url}/api/file/upload`, {
      method: 'POST',
      headers: { 'api-key': api.key, datastore: 'docs', 'content-type': type },
      body,
      duplex: 'half',
    } as RequestInit);
    assert.equal(response.status, 413);
    assert.equal(
      await response.text(),
      `The file is larger than the limit of ${LIMIT} bytes; nothing was stored.`,
    );
    assert.deepEqual(await rowCounts(service, 'docs'), before);
    const staged = await service.services.db.query('SELECT 1 FROM entity_files WHERE NOT complete');
    assert.equal(staged.rows.length, 0);
  });

  it('accepts a streamed upload just under the limit', async () => {
    const { body, type } = streamedMultipart(
      { entityId: userId, name: 'scan', value: 'scan.bin' },
      3 * MiB + 5,
    );
    const response = await fetch(`${service.url}/api/file/upload`, {
      method: 'POST',
      headers: { 'api-key': api.key, datastore: 'docs', 'content-type': type },
      body,
      duplex: 'half',
    } as RequestInit);
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal((await response.json()).size, 3 * MiB + 5);
  });

  it('refuses bad uploads with their 4xx and changes nothing', async () => {
    const before = await rowCounts(service, 'docs');
    const unknown = randomUUID();
    const cases: { body: BodyInit; headers?: Record<string, string>; status: number; text: RegExp }[] = [
      {
        body: uploadForm({ entityId: userId, name: 'x', value: '../../etc/passwd' }, Buffer.from('x')),
        status: 400,
        text: /"\.\.\/\.\.\/etc\/passwd" is not accepted/,
      },
      {
        body: uploadForm({ entityId: userId, name: 'x', value: 'evil\u0000.txt' }, Buffer.from('x')),
        status: 400,
        text: /not accepted/,
      },
      {
        body: uploadForm({ entityId: userId, name: 'x' }, Buffer.from('x'), '..'),
        status: 400,
        text: /not accepted/,
      },
      {
        body: uploadForm({ entityId: userId, name: 'x', value: 'a\\b.txt' }, Buffer.from('x')),
        status: 400,
        text: /not accepted/,
      },
      {
        body: uploadForm({ entityId: unknown, name: 'x', value: 'a.txt' }, Buffer.from('x')),
        status: 404,
        text: new RegExp(unknown),
      },
      {
        body: uploadForm({ entityId: 'nope', name: 'x', value: 'a.txt' }, Buffer.from('x')),
        status: 404,
        text: /"nope"/,
      },
      {
        body: uploadForm(
          { entityId: userId, name: "x'; DROP TABLE entity_files; --", value: 'a.txt' },
          Buffer.from('x'),
        ),
        status: 400,
        text: /is not a valid name/,
      },
      {
        body: uploadForm({ entityId: userId, value: 'a.txt' }, Buffer.from('x')),
        status: 400,
        text: /attribute\.name is required/,
      },
      {
        body: uploadForm({ entityId: userId, name: 'x', extra: 1 }, Buffer.from('x')),
        status: 400,
        text: /attribute\.extra is not an accepted field/,
      },
      { body: uploadForm('{"entityId":', Buffer.from('x')), status: 400, text: /not valid JSON/ },
      {
        body: JSON.stringify({ entityId: userId }),
        headers: { 'content-type': 'application/json' },
        status: 400,
        text: /multipart\/form-data/,
      },
      {
        body: 'raw bytes',
        headers: { 'content-type': 'application/octet-stream' },
        status: 400,
        text: /content type/,
      },
    ];
    const noFile = new FormData();
    noFile.append('attribute', JSON.stringify({ entityId: userId, name: 'x', value: 'a.txt' }));
    cases.push({ body: noFile, status: 400, text: /file part named file is required/ });
    const noAttribute = new FormData();
    noAttribute.append('file', new Blob(['x']), 'a.txt');
    cases.push({ body: noAttribute, status: 400, text: /attribute is required/ });
    const twoFiles = uploadForm({ entityId: userId, name: 'x', value: 'a.txt' }, Buffer.from('x'));
    twoFiles.append('file', new Blob(['y']), 'b.txt');
    cases.push({ body: twoFiles, status: 400, text: /send one part named file/ });
    const strayField = uploadForm({ entityId: userId, name: 'x', value: 'a.txt' }, Buffer.from('x'));
    strayField.append('comment', 'hello');
    cases.push({ body: strayField, status: 400, text: /"comment" is not accepted/ });

    for (const { status, text, ...request } of cases) {
      const answer = await api.call('/api/file/upload', request);
      assert.equal(answer.status, status, `${answer.text}`);
      assert.match(answer.headers.get('content-type') ?? '', /^text\/plain/);
      assert.match(answer.text, text);
    }
    assert.deepEqual(await rowCounts(service, 'docs'), before);
    const staged = await service.services.db.query('SELECT 1 FROM entity_files WHERE NOT complete');
    assert.equal(staged.rows.length, 0);
  });

  it('answers 404 for a missing file attribute or entity and 400 for a malformed download', async () => {
    const missingAttribute = await api.call(`/api/file/download?entityID=${userId}&attributeName=nothing`, {
      method: 'GET',
    });
    assert.equal(missingAttribute.status, 404);
    assert.equal(missingAttribute.text, `The entity ${userId} has no file attribute "nothing".`);
    const unknown = randomUUID();
    const missingEntity = await api.call(`/api/file/download?entityID=${unknown}&attributeName=passport`, {
      method: 'GET',
    });
    assert.equal(missingEntity.status, 404);
    assert.match(missingEntity.text, new RegExp(unknown));
    for (const query of [
      `entityID=${userId}`,
      'attributeName=passport',
      `entityID=${userId}&attributeName=../x`,
    ]) {
      const answer = await api.call(`/api/file/download?${query}`, { method: 'GET' });
      assert.equal(answer.status, 400, query);
    }
    const conflicting = await api.call(
      `/api/file/download?entityID=${userId}&entityId=${unknown}&attributeName=passport`,
      { method: 'GET' },
    );
    assert.equal(conflicting.status, 400);
  });

  it('forget removes the files and their chunks', async () => {
    const created = await api.call('/api/entity/create', { json: [{ name: 'users' }] });
    const id = created.body[0].id;
    const uploaded = await api.call('/api/file/upload', {
      body: uploadForm({ entityId: id, name: 'cv', value: 'cv.pdf' }, randomBytes(600_000)),
    });
    assert.equal(uploaded.status, 200);
    const before = await rowCounts(service, 'docs');
    assert.equal((await api.call('/api/user/forget', { json: { entityId: id } })).status, 200);
    const afterwards = await rowCounts(service, 'docs');
    assert.equal(afterwards.files, before.files - 1);
    assert.equal(afterwards.chunks, before.chunks - 3);
    assert.equal(
      (await api.call(`/api/file/download?entityID=${id}&attributeName=cv`, { method: 'GET' })).status,
      404,
    );
  });
});
