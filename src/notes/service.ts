// Notes and attachments of a privacy request. A note is internal, or mailed to the data subject through
// the outbox in the transaction that records it. An attachment is streamed in sealed 256 KiB chunks (never
// whole in memory), at most 10 MiB (413 above, nothing kept), and goes into the subject's ZIP when
// flagged include_in_package. Each is a line of the request's log (never its text or file name) and an
// entry of the configuration audit.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { type ChangeActor, recordChange } from '../audit/audit-log.ts';
import { principalName } from '../auth/scopes.ts';
import { writeInChunks } from '../db/chunked-upload.ts';
import type { Queryable } from '../db/database.ts';
import { notFound, tooLarge } from '../errors.ts';
import { queueSubjectMessages } from '../privacy-requests/messages/subject-messages.ts';
import { logRepository } from '../privacy-requests/log-repository.ts';
import { privacyRequestRepository } from '../privacy-requests/repository.ts';
import type { Services } from '../services.ts';
import { type AttachmentRow, type NoteRow, notesRepository as repo } from './repository.ts';
import { openChunk, openFileName, openNoteText, sealChunk, sealFileName, sealNoteText } from './sealing.ts';

export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
const CHUNK_BYTES = 256 * 1024;

type NoteServices = Pick<Services, 'db' | 'keyring' | 'config'>;

export interface NoteView {
  id: string;
  visibility: 'internal' | 'subject';
  text: string;
  created_by: string;
  created_at: string;
}

export interface AttachmentView {
  id: string;
  file_name: string;
  content_type: string;
  size: number;
  include_in_package: boolean;
  created_by: string;
  created_at: string;
}

const noteView = (services: NoteServices, row: NoteRow): NoteView => ({
  id: row.id,
  visibility: row.visibility,
  text: openNoteText(services.keyring, row.id, row.text_sealed),
  created_by: row.created_by,
  created_at: row.created_at.toISOString(),
});

const attachmentView = (services: NoteServices, row: AttachmentRow): AttachmentView => ({
  id: row.id,
  file_name: openFileName(services.keyring, row.id, row.file_name_sealed),
  content_type: row.content_type,
  size: Number(row.size),
  include_in_package: row.include_in_package,
  created_by: row.created_by,
  created_at: row.created_at.toISOString(),
});

async function requestOf(db: Queryable, id: string) {
  const request = await privacyRequestRepository.find(db, id);
  if (!request) throw notFound(`No privacy request with id ${id}.`);
  return request;
}

export async function addNote(
  services: NoteServices,
  by: ChangeActor,
  privacyRequestId: string,
  note: { text: string; visibility: 'internal' | 'subject' },
): Promise<NoteView> {
  return services.db.transaction(async (tx) => {
    const request = await requestOf(tx, privacyRequestId);
    const id = `note_${randomUUID()}`;
    const row = await repo.insertNote(tx, {
      id,
      privacy_request_id: request.id,
      visibility: note.visibility,
      text_sealed: sealNoteText(services.keyring, id, note.text),
      created_by: principalName(by.principal),
    });
    const mailed =
      note.visibility === 'subject'
        ? await queueSubjectMessages(tx, services, [
            { request, kind: 'subject_note', details: { reason: note.text } },
          ])
        : 0;
    await logRepository.appendLog(tx, request.id, [
      {
        kind: 'note',
        message:
          note.visibility === 'subject'
            ? `note to the subject by ${row.created_by}${mailed ? '' : ' (the request has no email to mail it to)'}`
            : `internal note by ${row.created_by}`,
        details: { note_id: id, visibility: note.visibility },
      },
    ]);
    await recordChange(tx, by, 'privacy-request.note', {
      privacy_request_id: request.id,
      note_id: id,
      visibility: note.visibility,
    });
    return noteView(services, row);
  });
}

export async function notesOf(services: NoteServices, privacyRequestId: string): Promise<NoteView[]> {
  await requestOf(services.db, privacyRequestId);
  return (await repo.notesOf(services.db, privacyRequestId)).map((row) => noteView(services, row));
}

export interface StagedAttachment {
  id: string;
  privacyRequestId: string;
  contentType: string;
  size: number;
  chunkCount: number;
}

/**
 * Writes an upload's chunks as they arrive, before its other form fields are known; `completeAttachment`
 * then binds it, and `discardAttachment` drops it (on any failure, including too large: 413).
 */
export async function stageAttachment(
  services: NoteServices,
  by: ChangeActor,
  privacyRequestId: string,
  upload: { contentType: string; source: AsyncIterable<Buffer> },
): Promise<StagedAttachment> {
  const request = await requestOf(services.db, privacyRequestId);
  const id = `att_${randomUUID()}`;
  await repo.stageAttachment(services.db, {
    id,
    privacyRequestId: request.id,
    contentType: upload.contentType,
    createdBy: principalName(by.principal),
  });
  try {
    let chunkNo = 0;
    const flush = async (bytes: Buffer) => {
      await repo.insertChunk(services.db, id, chunkNo, sealChunk(services.keyring, id, chunkNo, bytes));
      chunkNo += 1;
    };
    const { overLimit, size } = await writeInChunks(
      upload.source,
      { chunkBytes: CHUNK_BYTES, maxBytes: MAX_ATTACHMENT_BYTES },
      flush,
    );
    if (overLimit) {
      throw tooLarge(
        `An attachment may hold at most ${MAX_ATTACHMENT_BYTES} bytes (10 MiB); nothing was kept.`,
      );
    }
    return { id, privacyRequestId: request.id, contentType: upload.contentType, size, chunkCount: chunkNo };
  } catch (error) {
    await repo.discardAttachment(services.db, id);
    throw error;
  }
}

export async function discardAttachment(services: NoteServices, staged: StagedAttachment): Promise<void> {
  await repo.discardAttachment(services.db, staged.id);
}

export async function completeAttachment(
  services: NoteServices,
  by: ChangeActor,
  staged: StagedAttachment,
  fileName: string,
  includeInPackage: boolean,
): Promise<AttachmentView> {
  return services.db.transaction(async (tx) => {
    const row = await repo.completeAttachment(tx, staged.id, {
      size: staged.size,
      chunkCount: staged.chunkCount,
      fileNameSealed: sealFileName(services.keyring, staged.id, fileName),
      includeInPackage,
    });
    await logRepository.appendLog(tx, staged.privacyRequestId, [
      {
        kind: 'note',
        message: `attachment added by ${row.created_by}`,
        details: { attachment_id: staged.id, size: staged.size, include_in_package: includeInPackage },
      },
    ]);
    await recordChange(tx, by, 'privacy-request.attachment', {
      privacy_request_id: staged.privacyRequestId,
      attachment_id: staged.id,
      size: staged.size,
    });
    return attachmentView(services, row);
  });
}

export async function attachmentsOf(
  services: NoteServices,
  privacyRequestId: string,
): Promise<AttachmentView[]> {
  await requestOf(services.db, privacyRequestId);
  return (await repo.attachmentsOf(services.db, privacyRequestId)).map((row) =>
    attachmentView(services, row),
  );
}

/** The attachments flagged for the subject's ZIP, each with a stream of its bytes (one chunk per query). */
export async function packagedAttachments(
  services: Pick<Services, 'db' | 'keyring'>,
  privacyRequestId: string,
): Promise<{ fileName: string; size: number; open: () => Readable }[]> {
  const rows = await repo.attachmentsOf(services.db, privacyRequestId, true);
  return rows.map((row) => ({
    fileName: openFileName(services.keyring, row.id, row.file_name_sealed),
    size: Number(row.size),
    open: () =>
      Readable.from(
        (async function* () {
          for (let chunkNo = 0; chunkNo < row.chunk_count; chunkNo++) {
            const sealed = await repo.chunk(services.db, row.id, chunkNo);
            if (!sealed) throw new Error(`attachment ${row.id} lost its chunk ${chunkNo}`);
            yield openChunk(services.keyring, row.id, chunkNo, sealed);
          }
        })(),
      ),
  }));
}
