// SQL of request_notes, request_attachments and their chunks. Text, names and bytes arrive and leave
// sealed (sealing.ts).
import type { Queryable } from '../db/database.ts';

export interface NoteRow {
  id: string;
  privacy_request_id: string;
  visibility: 'internal' | 'subject';
  text_sealed: Uint8Array;
  created_by: string;
  created_at: Date;
}

export interface AttachmentRow {
  id: string;
  privacy_request_id: string;
  file_name_sealed: Uint8Array;
  content_type: string;
  size: string;
  chunk_count: number;
  include_in_package: boolean;
  created_by: string;
  created_at: Date;
}

export const notesRepository = {
  async insertNote(
    tx: Queryable,
    note: Omit<NoteRow, 'created_at' | 'text_sealed'> & { text_sealed: Buffer },
  ): Promise<NoteRow> {
    const { rows } = await tx.query<NoteRow>(
      `INSERT INTO request_notes (id, privacy_request_id, visibility, text_sealed, created_by)
       VALUES ($1, $2, $3, $4, $5) RETURNING *`,
      [note.id, note.privacy_request_id, note.visibility, note.text_sealed, note.created_by],
    );
    return rows[0] as NoteRow;
  },

  async notesOf(db: Queryable, privacyRequestId: string): Promise<NoteRow[]> {
    const { rows } = await db.query<NoteRow>(
      'SELECT * FROM request_notes WHERE privacy_request_id = $1 ORDER BY created_at, id',
      [privacyRequestId],
    );
    return rows;
  },

  async stageAttachment(
    db: Queryable,
    row: { id: string; privacyRequestId: string; contentType: string; createdBy: string },
  ): Promise<void> {
    // Uploads cut off (a process killed mid-upload) leave staged rows; they go a day later.
    await db.query(
      `DELETE FROM request_attachments WHERE NOT complete AND created_at < now() - interval '1 day'`,
    );
    await db.query(
      `INSERT INTO request_attachments (id, privacy_request_id, content_type, created_by) VALUES ($1, $2, $3, $4)`,
      [row.id, row.privacyRequestId, row.contentType, row.createdBy],
    );
  },

  async insertChunk(db: Queryable, id: string, chunkNo: number, sealed: Buffer): Promise<void> {
    await db.query(
      'INSERT INTO request_attachment_chunks (attachment_id, chunk_no, data_sealed) VALUES ($1, $2, $3)',
      [id, chunkNo, sealed],
    );
  },

  async completeAttachment(
    tx: Queryable,
    id: string,
    done: { size: number; chunkCount: number; fileNameSealed: Buffer; includeInPackage: boolean },
  ): Promise<AttachmentRow> {
    const { rows } = await tx.query<AttachmentRow>(
      `UPDATE request_attachments SET size = $2, chunk_count = $3, file_name_sealed = $4,
              include_in_package = $5, complete = true
        WHERE id = $1 RETURNING *`,
      [id, done.size, done.chunkCount, done.fileNameSealed, done.includeInPackage],
    );
    return rows[0] as AttachmentRow;
  },

  async discardAttachment(db: Queryable, id: string): Promise<void> {
    await db.query('DELETE FROM request_attachments WHERE id = $1 AND NOT complete', [id]);
  },

  async attachmentsOf(
    db: Queryable,
    privacyRequestId: string,
    onlyInPackage = false,
  ): Promise<AttachmentRow[]> {
    const { rows } = await db.query<AttachmentRow>(
      `SELECT * FROM request_attachments WHERE privacy_request_id = $1 AND complete
          AND ($2 = false OR include_in_package) ORDER BY created_at, id`,
      [privacyRequestId, onlyInPackage],
    );
    return rows;
  },

  async chunk(db: Queryable, id: string, chunkNo: number): Promise<Uint8Array | undefined> {
    const { rows } = await db.query<{ data_sealed: Uint8Array }>(
      'SELECT data_sealed FROM request_attachment_chunks WHERE attachment_id = $1 AND chunk_no = $2',
      [id, chunkNo],
    );
    return rows[0]?.data_sealed;
  },
};
