// HTTP face of a request's notes and attachments: written with privacy-request:review, read with
// privacy-request:read. An attachment is multipart/form-data: an optional field include_in_package
// ("true"/"false") and one part named file, streamed (never buffered whole); above 10 MiB it is 413 and
// nothing is kept. Domain rules live in service.ts.
import multipart from '@fastify/multipart';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { changeActorOf } from '../http/authorize.ts';
import { ErrorDetail, managementErrors, security } from '../http/schemas.ts';
import { badRequest } from '../errors.ts';
import { multipartInputError } from '../http/multipart-errors.ts';
import type { Services } from '../services.ts';
import {
  addNote,
  attachmentsOf,
  completeAttachment,
  discardAttachment,
  MAX_ATTACHMENT_BYTES,
  notesOf,
  type StagedAttachment,
  stageAttachment,
} from './service.ts';

const tags = ['privacy requests'];
const Strict = { additionalProperties: false } as const;
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }, Strict);
const errors = { 404: ErrorDetail, ...managementErrors };
const CONTENT_TYPE = /^[\w.+-]+\/[\w.+-]+$/;

const NoteBody = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 10_000, pattern: '\\S' }),
    visibility: Type.Union([Type.Literal('internal'), Type.Literal('subject')], {
      description: 'subject: mailed to the data subject through the outbox',
    }),
  },
  Strict,
);
type NoteBody = Type.Static<typeof NoteBody>;
const NoteView = Type.Object(
  {
    id: Type.String(),
    visibility: Type.Union([Type.Literal('internal'), Type.Literal('subject')]),
    text: Type.String(),
    created_by: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
  },
  Strict,
);
const AttachmentView = Type.Object(
  {
    id: Type.String(),
    file_name: Type.String(),
    content_type: Type.String(),
    size: Type.Integer(),
    include_in_package: Type.Boolean(),
    created_by: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
  },
  Strict,
);

type IdRoute = { Params: { id: string } };

export function noteRoutes(services: Services): FastifyPluginAsync {
  return async (app) => {
    await app.register(multipart, {
      // One byte over reaches the service, which refuses it with 413; at exactly the limit busboy would
      // cut the file short silently.
      limits: { fileSize: MAX_ATTACHMENT_BYTES + 1, files: 1, fields: 2, fieldSize: 16, parts: 3 },
      throwFileSizeLimit: false,
    });

    app.post<IdRoute & { Body: NoteBody }>(
      '/privacy-request/:id/note',
      {
        onRequest: app.authorize('privacy-request:review'),
        schema: {
          tags,
          summary: 'Add a note to a request: internal, or mailed to the data subject (visibility subject).',
          security,
          params: IdParams,
          body: NoteBody,
          response: { 201: NoteView, ...errors },
        },
      },
      async (request, reply) => {
        const note = await addNote(services, changeActorOf(request), request.params.id, request.body);
        request.log.info({ privacy_request_id: request.params.id, note_id: note.id }, 'note added');
        return reply.status(201).send(note);
      },
    );

    app.get<IdRoute>(
      '/privacy-request/:id/note',
      {
        onRequest: app.authorize('privacy-request:read'),
        schema: {
          tags,
          summary: "A request's notes, oldest first.",
          security,
          params: IdParams,
          response: { 200: Type.Array(NoteView), ...errors },
        },
      },
      async (request) => notesOf(services, request.params.id),
    );

    app.post<IdRoute>(
      '/privacy-request/:id/attachment',
      {
        onRequest: app.authorize('privacy-request:review'),
        // The multipart body is read as a stream below; the schema documents it.
        validatorCompiler: () => () => true,
        schema: {
          tags,
          summary:
            'Attach a file to a request (multipart: include_in_package, then file); streamed and sealed at rest, at most 10 MiB (413 above, nothing kept). Flagged files go into the ZIP of the data subject.',
          security,
          params: IdParams,
          consumes: ['multipart/form-data'],
          body: Type.Object({
            include_in_package: Type.Optional(Type.String({ enum: ['true', 'false'] })),
            file: Type.String({ format: 'binary' }),
          }),
          response: { 201: AttachmentView, 413: ErrorDetail, ...errors },
        },
      },
      async (request, reply) => {
        const attachment = await receiveUpload(services, request, request.params.id);
        request.log.info(
          { privacy_request_id: request.params.id, attachment_id: attachment.id, size: attachment.size },
          'attachment added',
        );
        return reply.status(201).send(attachment);
      },
    );

    app.get<IdRoute>(
      '/privacy-request/:id/attachment',
      {
        onRequest: app.authorize('privacy-request:read'),
        schema: {
          tags,
          summary: "A request's attachments (names and sizes, not contents), oldest first.",
          security,
          params: IdParams,
          response: { 200: Type.Array(AttachmentView), ...errors },
        },
      },
      async (request) => attachmentsOf(services, request.params.id),
    );
  };
}

async function receiveUpload(services: Services, request: FastifyRequest, id: string) {
  if (!request.isMultipart()) throw badRequest('An attachment is sent as multipart/form-data.');
  const by = changeActorOf(request);
  let include = false;
  let staged: { value: StagedAttachment; fileName: string } | undefined;
  let failure: unknown;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        if (part.fieldname !== 'include_in_package' || !['true', 'false'].includes(String(part.value))) {
          failure ??= badRequest('include_in_package: give "true" or "false" (the only field besides file).');
        }
        include = part.value === 'true';
        continue;
      }
      if (part.fieldname !== 'file' || staged || failure) {
        failure ??= badRequest('file: send one part named file.');
        for await (const _discarded of part.file);
        continue;
      }
      const contentType = CONTENT_TYPE.test(part.mimetype) ? part.mimetype : 'application/octet-stream';
      try {
        const value = await stageAttachment(services, by, id, { contentType, source: part.file });
        staged = { value, fileName: (part.filename || 'attachment').slice(0, 255) };
      } catch (error) {
        failure = error;
      }
    }
    if (failure) throw failure;
    if (!staged) throw badRequest('file: the multipart part named file is required.');
    return await completeAttachment(services, by, staged.value, staged.fileName, include);
  } catch (error) {
    if (staged) await discardAttachment(services, staged.value);
    throw multipartInputError(error);
  }
}
