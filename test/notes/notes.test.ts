// Notes and attachments of a request over real HTTP, a real worker and a real SMTP server: an internal note
// mails nobody, a subject note is mailed to the subject; bad input is 4xx and changes nothing. An
// attachment is streamed and sealed at rest (no plaintext in the store), at most 10 MiB (413 above,
// nothing kept), and the flagged ones are in the subject's ZIP, the others not; so is what a manual
// system's task gave (data.json and report.html, under the system's name).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  downloadLinkIn,
  isKind,
  type MailServer,
  publishDefaults,
  readZip,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import { logOf, waitForStatus } from '../privacy-requests/support.ts';
import { putManualSystem, signIn, tasksOf } from '../tasks/support.ts';

const SUBJECT = 'kim@example.com';
const MARKER = 'PLAINTEXT-MARKER-7d1f';

describe('notes and attachments', () => {
  let mail: MailServer;
  let service: TestService;
  let token: string;
  let viewer: string;
  let id: string;

  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port), { worker: true });
    token = await service.rootToken();
    viewer = await signIn(service, 'vera', ['viewer']);
    await publishDefaults(service);
    // A manual system too: what its task gives must reach the ZIP beside the attachments.
    await putManualSystem(service, 'desk', { name: 'Front desk' });
    const created = await service.call('POST', '/v1/privacy-request', {
      token,
      json: [{ policy_key: 'default_access_policy', identity: { email: SUBJECT } }],
    });
    id = created.body.succeeded[0].id as string;
    await waitForStatus(service, id, 'requires_input');
    const [task] = await tasksOf(service, id);
    const done = await service.call('POST', `/v1/task/${task.id}/complete`, {
      token,
      json: { data: { customer_number: 'D-55' } },
    });
    assert.equal(done.status, 200, done.text);
    await waitForStatus(service, id, 'complete');
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  const upload = (file: Buffer, name: string, include?: string, as = token) => {
    const form = new FormData();
    if (include !== undefined) form.append('include_in_package', include);
    form.append('file', new Blob([new Uint8Array(file)], { type: 'application/pdf' }), name);
    return service.call('POST', `/v1/privacy-request/${id}/attachment`, { token: as, body: form });
  };

  it('keeps internal notes internal and mails subject notes', async () => {
    const internal = await service.call('POST', `/v1/privacy-request/${id}/note`, {
      token,
      json: { text: 'Called the shop: no paper records.', visibility: 'internal' },
    });
    assert.equal(internal.status, 201, internal.text);
    const toSubject = await service.call('POST', `/v1/privacy-request/${id}/note`, {
      token,
      json: { text: 'We also looked in our paper archive and found nothing.', visibility: 'subject' },
    });
    assert.equal(toSubject.status, 201, toSubject.text);
    const mailed = await mail.waitFor(isKind('a note about your request', SUBJECT));
    assert.match(mailed.text, /looked in our paper archive/);
    assert.ok(!mail.mails.some((candidate) => candidate.text.includes('no paper records')));

    for (const [json, status] of [
      [{ text: '', visibility: 'internal' }, 422],
      [{ text: '   ', visibility: 'internal' }, 422],
      [{ text: 'x'.repeat(10_001), visibility: 'internal' }, 422],
      [{ text: 'hi', visibility: 'public' }, 422],
      [{ text: 'hi' }, 422],
    ] as const) {
      const refused = await service.call('POST', `/v1/privacy-request/${id}/note`, { token, json });
      assert.equal(refused.status, status, refused.text);
    }
    const byViewer = await service.call('POST', `/v1/privacy-request/${id}/note`, {
      token: viewer,
      json: { text: 'hi', visibility: 'internal' },
    });
    assert.equal(byViewer.status, 403);
    const unknown = await service.call('POST', '/v1/privacy-request/pri_nope/note', {
      token,
      json: { text: 'hi', visibility: 'internal' },
    });
    assert.equal(unknown.status, 404);

    const listed = await service.call('GET', `/v1/privacy-request/${id}/note`, { token: viewer });
    assert.deepEqual(
      listed.body.map((note: { visibility: string; created_by: string }) => [
        note.visibility,
        note.created_by,
      ]),
      [
        ['internal', 'root-test-client'],
        ['subject', 'root-test-client'],
      ],
    );
    const { rows } = await service.services.db.query<{ text: string }>(
      `SELECT encode(text_sealed, 'escape') AS text FROM request_notes`,
    );
    assert.ok(
      rows.every((row) => !row.text.includes('paper')),
      'note text sealed at rest',
    );
    const log = await logOf(service, id);
    assert.ok(log.some((entry) => entry.message === 'internal note by root-test-client'));
    assert.ok(log.some((entry) => entry.message === 'note to the subject by root-test-client'));
  });

  it('streams, seals and bounds attachments; flagged ones are in the ZIP', { timeout: 120_000 }, async () => {
    const report = Buffer.concat([Buffer.from(MARKER), randomBytes(600 * 1024), Buffer.from(MARKER)]);
    const flagged = await upload(report, 'archive report.pdf', 'true');
    assert.equal(flagged.status, 201, flagged.text);
    assert.equal(flagged.body.size, report.length);
    assert.equal(flagged.body.include_in_package, true);
    assert.equal(flagged.body.file_name, 'archive report.pdf');
    const internal = await upload(Buffer.from('internal memo'), 'memo.txt');
    assert.equal(internal.status, 201, internal.text);
    assert.equal(internal.body.include_in_package, false);

    const tooBig = await upload(Buffer.alloc(10 * 1024 * 1024 + 1, 1), 'big.bin', 'true');
    assert.equal(tooBig.status, 413, tooBig.text);
    const exactly = await upload(Buffer.alloc(10 * 1024 * 1024, 2), 'exact.bin', 'false');
    assert.equal(exactly.status, 201, exactly.text);
    const badFlag = await upload(Buffer.from('x'), 'x.txt', 'maybe');
    assert.equal(badFlag.status, 400, badFlag.text);
    const notMultipart = await service.call('POST', `/v1/privacy-request/${id}/attachment`, {
      token,
      json: { file: 'x' },
    });
    assert.ok([400, 415].includes(notMultipart.status), notMultipart.text);
    // Bodies cut short (the chaos run's fuzzer found the first answering 500): a field part, then a file part.
    const boundary = 'cut-short-boundary';
    for (const cut of [
      `--${boundary}\r\nContent-Disposition: form-data; name="include_in_package"\r\n\r\n\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhalf a fi`,
    ]) {
      const cutShort = await service.call('POST', `/v1/privacy-request/${id}/attachment`, {
        token,
        body: cut,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      assert.equal(cutShort.status, 400, cutShort.text);
      assert.match(cutShort.body.detail, /^The multipart body is malformed: /);
    }
    assert.equal((await upload(Buffer.from('x'), 'x.txt', 'true', viewer)).status, 403);

    const listed = await service.call('GET', `/v1/privacy-request/${id}/attachment`, { token: viewer });
    assert.deepEqual(
      listed.body.map((item: { file_name: string }) => item.file_name),
      ['archive report.pdf', 'memo.txt', 'exact.bin'],
    );
    const counts = await service.services.db.query<{ rows: number; found: number }>(
      `SELECT (SELECT count(*)::int FROM request_attachments) AS rows,
              (SELECT count(*)::int FROM request_attachment_chunks
                WHERE position(convert_to($1, 'UTF8') IN data_sealed) > 0) AS found`,
      [MARKER],
    );
    assert.deepEqual(counts.rows[0], { rows: 3, found: 0 }, 'nothing kept of refused uploads; chunks sealed');

    const link = downloadLinkIn(await mail.waitFor(isKind('your request is complete', SUBJECT)));
    const zip = await readZip(Buffer.from(await (await fetch(link)).arrayBuffer()));
    const names = [...zip.keys()].filter((name) => name.startsWith('attachments/'));
    assert.deepEqual(names, ['attachments/1-archive report.pdf']);
    assert.ok(zip.get('attachments/1-archive report.pdf')?.equals(report), 'the bytes come back whole');
    const data = JSON.parse(zip.get('data.json')?.toString('utf8') ?? '{}');
    assert.deepEqual(data.manual_systems, [
      { key: 'desk', name: 'Front desk', data: { customer_number: 'D-55' } },
    ]);
    const html = zip.get('report.html')?.toString('utf8') ?? '';
    assert.match(html, /<h2>Front desk<\/h2>/);
    assert.match(html, /<th scope="row">customer_number<\/th><td>D-55<\/td>/);
  });
});
