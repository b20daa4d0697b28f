// File names are data, never paths (beyond the refusals of test/subject-api/files.test.ts): names that look like
// traversal, header injection, markup or SQL, and names of 255 characters, are stored sealed and answered
// verbatim, with a Content-Disposition that parses back to the same name and carries no raw quote, CR or
// LF; names with `/`, `\`, NUL or other control characters, `.`/`..` and 256 characters are refused with
// 400 and nothing stored. No upload ever creates a file outside the store.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseDisposition } from 'content-disposition';
import { type ApiClient, apiClient, rowCounts } from '../helpers/area-b.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const MARKER = 'zq7lethe';

async function entriesNamed(directory: string, recursive: boolean): Promise<string[]> {
  const names = await readdir(directory, { recursive }).catch(() => [] as string[]);
  return names.filter((name) => name.includes(MARKER));
}

describe('file names are data only', () => {
  let service: TestService;
  let api: ApiClient;
  let entityId: string;

  before(async () => {
    service = await startTestService();
    api = await apiClient(service, 'names');
    const created = await api.call('/api/entity/create', { json: [{ name: 'users' }] });
    entityId = created.body[0].id;
  });
  after(() => service.stop());

  const upload = (fileName: string, attribute = 'doc') => {
    const form = new FormData();
    form.append('attribute', JSON.stringify({ entityId, name: attribute, value: fileName }));
    form.append('file', new Blob([`bytes of ${MARKER}`], { type: 'text/plain' }), 'ignored.txt');
    return api.call('/api/file/upload', { body: form });
  };

  it('stores hostile-looking names verbatim and answers them in a safe Content-Disposition', async () => {
    const names = [
      `..%2F..%2Fetc%2Fpasswd-${MARKER}`,
      `..\u2215..\u2215etc\u2215passwd-${MARKER}`,
      `..\uff0f..\uff0fetc-${MARKER}`,
      `...-${MARKER}`,
      `.htaccess-${MARKER}`,
      `"; filename=evil.exe; x="-${MARKER}`,
      `<img src=x onerror=alert(1)>-${MARKER}.html`,
      `'; DROP TABLE entity_files; --${MARKER}`,
      `C:DOSNAME-${MARKER}~1.TXT`,
      `résumé ünïcødé 履歴書 🗂-${MARKER}.pdf`,
      `${MARKER}${'n'.repeat(255 - MARKER.length)}`,
    ];
    for (const name of names) {
      const uploaded = await upload(name);
      assert.equal(uploaded.status, 200, `${name}: ${uploaded.text}`);
      assert.equal(uploaded.body.value, name);
      const download = await api.call(`/api/file/download?entityId=${entityId}&attributeName=doc`, {
        method: 'GET',
      });
      assert.equal(download.status, 200, name);
      assert.equal(download.text, `bytes of ${MARKER}`);
      const header = download.headers.get('content-disposition') ?? '';
      assert.match(header, /^attachment; filename=/, name);
      assert.doesNotMatch(header, /[\r\n\0]/, name);
      const parsed = parseDisposition(header);
      assert.equal(parsed.type, 'attachment');
      assert.ok(
        Object.keys(parsed.parameters).every((key) => key === 'filename' || key === 'filename*'),
        `${name}: no injected parameter`,
      );
      assert.equal(parsed.parameters.filename, name);
      const listed = await api.call('/api/entity/get-by-id', { json: [entityId] });
      assert.equal(listed.body[0].files[0].fileName, name);
    }
  });

  it('refuses path-like, control-character and overlong names with 400, storing nothing', async () => {
    const before = await rowCounts(service, 'names');
    const refused = [
      `../${MARKER}`,
      `/etc/${MARKER}`,
      `..\\..\\${MARKER}`,
      `${MARKER}\u0000.txt`,
      `${MARKER}\r\nX-Injected: 1`,
      `${MARKER}\ttab`,
      '..',
      '.',
      `${MARKER}${'n'.repeat(256 - MARKER.length)}`,
    ];
    for (const name of refused) {
      const answer = await upload(name, 'refused');
      assert.equal(answer.status, 400, JSON.stringify(name));
      assert.match(answer.text, /not accepted|value/, JSON.stringify(name));
    }
    assert.deepEqual(await rowCounts(service, 'names'), before);
    const listed = await api.call('/api/entity/get-by-id', { json: [entityId] });
    assert.ok(listed.body[0].files.every((file: { name: string }) => file.name !== 'refused'));
  });

  it('writes no file named after an upload anywhere on disk it could reach', async () => {
    const found = [
      ...(await entriesNamed(service.config.dataDir, true)),
      ...(await entriesNamed(process.cwd(), false)),
      ...(await entriesNamed(tmpdir(), false)),
      ...(await entriesNamed(path.resolve(service.config.dataDir, '..'), false)),
      ...(await entriesNamed('/etc', false)),
    ];
    assert.deepEqual(found, []);
  });
});
