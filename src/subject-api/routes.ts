// The seed's Area B endpoints under /api, each for POST and GET. Every call first passes the gate
// (api-keys/gate.ts: address throttle, maintenance, API key, rate limit) and the datastore header (400 missing,
// 403 not granted, 404 not created); then its input is normalised (input.ts) and handed to
// SubjectService. Errors are text/plain sentences
// (config.plainErrors).
import multipart from '@fastify/multipart';
import { create as contentDisposition } from 'content-disposition';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import Type, { type TSchema } from 'typebox';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { badRequest, tooLarge } from '../errors.ts';
import type { DatastoreAdminService } from '../datastore/admin-service.ts';
import { multipartInputError } from '../http/multipart-errors.ts';
import { arrayInput, objectInput, type RawInput, rawInput } from './input.ts';
import { validated } from '../datastore/entity-input.ts';
import { createApiGate } from '../api-keys/gate.ts';
import { type ApiKeyPrincipal, authorizeDatastore } from '../api-keys/keys.ts';
import {
  AttributeDeleteInput,
  AttributeUpdateInput,
  answers,
  apiKeySecurity,
  DatastoreHeader,
  DownloadInput,
  EntityCreateInput,
  ForgetInput,
  IdentitiesInput,
  IdsInput,
  plain,
  plainErrors,
  queryOnPost,
  SarInput,
  UploadAttribute,
  UserDeleteInput,
} from './schemas.ts';
import type { StagedFile } from '../datastore/file-store.ts';
import type { SubjectFiles } from '../datastore/subject-files.ts';
import type { SubjectService } from '../datastore/subject-service.ts';
import { type CallContext, type EntityInput, shown } from '../datastore/subject-items.ts';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ApiKeyPrincipal | undefined;
    subjectDatastore: string | undefined;
  }
}

const FILE_NAME = /^[^/\\\p{Cc}]{1,255}$/u;
const CONTENT_TYPE = /^[\w.+-]{1,100}\/[\w.+-]{1,100}$/;
const noValidation = () => () => true;

function contextOf(request: FastifyRequest): CallContext {
  if (!request.apiKey || !request.subjectDatastore) throw new Error('route is missing the API key guard');
  return {
    datastore: request.subjectDatastore,
    actor: `api-key:${request.apiKey.id}`,
    requestId: request.id,
    clientAddress: request.ip,
  };
}

export interface SubjectApiDependencies {
  config: Config;
  db: Database;
  admin: DatastoreAdminService;
  subjects: SubjectService;
  files: SubjectFiles;
}

export function subjectApiRoutes({
  config,
  db,
  admin,
  subjects,
  files,
}: SubjectApiDependencies): FastifyPluginAsync {
  return async (scope: FastifyInstance) => {
    scope.decorateRequest('apiKey', undefined);
    scope.decorateRequest('subjectDatastore', undefined);
    await scope.register(multipart, {
      // One byte over the limit reaches the file store, which then refuses the upload with 413; at exactly
      // the limit busboy would cut the file short silently.
      limits: { fileSize: config.maxFileBytes + 1, files: 4, fields: 20, fieldSize: 1024 * 1024, parts: 30 },
      throwFileSizeLimit: false,
    });
    scope.removeContentTypeParser('text/plain');
    scope.addContentTypeParser('*', (request, _payload, done) => {
      done(
        badRequest(
          `The content type ${shown(request.headers['content-type'] ?? '')} is not accepted; send JSON, a form or multipart/form-data.`,
        ),
      );
    });

    const admit = await createApiGate(scope, { config, db, admin });
    scope.addHook('onRequest', async (request, reply) => {
      const principal = await admit(request, reply);
      request.subjectDatastore = await authorizeDatastore(db, principal, request.headers.datastore);
    });

    const forms = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'];
    const endpoint = (
      url: string,
      summary: string,
      schemas: { body: TSchema; query: TSchema; response: Record<number, unknown>; consumes?: string[] },
      handler: (
        request: FastifyRequest,
        reply: FastifyReply,
        raw: () => Promise<RawInput>,
      ) => Promise<unknown>,
    ) => {
      for (const method of ['POST', 'GET'] as const) {
        scope.route({
          method,
          url,
          config: { plainErrors: true },
          validatorCompiler: noValidation,
          schema: {
            tags: ['subject data'],
            summary: method === 'POST' ? summary : `${summary} (GET form: the same inputs)`,
            security: apiKeySecurity,
            headers: DatastoreHeader,
            ...(method === 'POST' ? { body: schemas.body, consumes: schemas.consumes ?? forms } : {}),
            querystring: method === 'POST' ? queryOnPost(schemas.query) : schemas.query,
            response: { ...schemas.response, ...plainErrors },
          },
          handler: (request, reply) => handler(request, reply, () => rawInput(request)),
        });
      }
    };

    const jsonArrayField = (description: string) =>
      Type.Object({ [description]: Type.Optional(Type.String()) });

    endpoint(
      '/api/user/delete',
      'Right to delete: remove <table>.<attribute> from the entity and its descendants of that table.',
      { body: UserDeleteInput, query: UserDeleteInput, response: { 200: answers.userDelete } },
      async (request, _reply, raw) => {
        const input = objectInput<{ entityId: string; attributeNames: string | string[] }>(
          await raw(),
          UserDeleteInput,
          'entityId, attributeNames',
        );
        return subjects.deleteUserAttributes(contextOf(request), input);
      },
    );

    endpoint(
      '/api/user/forget',
      'Right to forget: erase the entity, its descendants, their attributes and files in one transaction.',
      { body: ForgetInput, query: ForgetInput, response: { 200: answers.forget } },
      async (request, _reply, raw) =>
        subjects.forget(contextOf(request), objectInput(await raw(), ForgetInput, 'entityId')),
    );

    endpoint(
      '/api/user/sar',
      'Subject access request: the entity, its descendants, attributes and file metadata; mailed when SMTP is set.',
      { body: SarInput, query: SarInput, response: { 200: answers.sar } },
      async (request, _reply, raw) =>
        subjects.subjectAccessReport(
          contextOf(request),
          objectInput(await raw(), SarInput, 'entityId, email'),
        ),
    );

    endpoint(
      '/api/entity/create',
      'Create entities (answers 203); each item answers its id or its error.',
      { body: EntityCreateInput, query: jsonArrayField('entities'), response: { 203: answers.create } },
      async (request, reply, raw) => {
        const items = arrayInput<EntityInput[]>(await raw(), EntityCreateInput, 'entities', false);
        const created = await subjects.createEntities(contextOf(request), items);
        return reply.status(203).send(created);
      },
    );

    endpoint(
      '/api/entity/delete',
      'Delete entities with their attributes and files.',
      { body: IdsInput, query: jsonArrayField('ids'), response: { 200: answers.entityDelete } },
      async (request, _reply, raw) =>
        subjects.deleteEntities(contextOf(request), arrayInput<string[]>(await raw(), IdsInput, 'ids', true)),
    );

    endpoint(
      '/api/attribute/delete',
      'Delete attributes; the entities stay.',
      {
        body: AttributeDeleteInput,
        query: jsonArrayField('items'),
        response: { 200: answers.attributeDelete },
      },
      async (request, _reply, raw) =>
        subjects.deleteAttributeItems(
          contextOf(request),
          arrayInput(await raw(), AttributeDeleteInput, 'items', false),
        ),
    );

    endpoint(
      '/api/attribute/update',
      'Set attribute values (an absent attribute is added).',
      {
        body: AttributeUpdateInput,
        query: jsonArrayField('items'),
        response: { 200: answers.attributeUpdate },
      },
      async (request, _reply, raw) =>
        subjects.updateAttributeItems(
          contextOf(request),
          arrayInput(await raw(), AttributeUpdateInput, 'items', false),
        ),
    );

    endpoint(
      '/api/entity/get-by-id',
      'Get entities by id.',
      { body: IdsInput, query: jsonArrayField('ids'), response: { 200: answers.getById } },
      async (request, _reply, raw) =>
        subjects.getByIds(contextOf(request), arrayInput<string[]>(await raw(), IdsInput, 'ids', true)),
    );

    endpoint(
      '/api/entity/get-by-identity',
      'Get entities by identity (an attribute value; emails match case-insensitively) through the blind index.',
      {
        body: IdentitiesInput,
        query: jsonArrayField('identities'),
        response: { 200: answers.getByIdentity },
      },
      async (request, _reply, raw) =>
        subjects.getByIdentities(
          contextOf(request),
          arrayInput<string[]>(await raw(), IdentitiesInput, 'identities', true),
        ),
    );

    endpoint(
      '/api/file/download',
      'Download a file attribute, streamed with its content type and a Content-Disposition naming the file.',
      {
        body: DownloadInput,
        query: Type.Object({ entityID: Type.String(), attributeName: Type.String() }),
        response: {
          200: {
            description: 'the stored bytes, with the content type they were uploaded with',
            content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
          },
        },
      },
      async (request, reply, raw) => {
        const input = objectInput<{ entityId: string; attributeName: string }>(
          await raw(),
          DownloadInput,
          'entityID, attributeName',
        );
        const { file, body } = await files.download(contextOf(request), input);
        return (
          reply
            .header('content-type', file.contentType)
            .header('content-length', String(file.size))
            .header('content-disposition', contentDisposition(file.fileName))
            // The stored type is the uploader's word (text/html, image/svg+xml): opened in a browser anyway,
            // the file runs in a sandbox with no script and no origin.
            .header('content-security-policy', 'sandbox')
            .send(body)
        );
      },
    );

    endpoint(
      '/api/file/upload',
      'Upload a file attribute: multipart fields attribute (JSON {entityId, name, value}) and file; streamed, never buffered whole.',
      {
        body: Type.Object({
          attribute: Type.String({ description: 'JSON of {entityId, name, value: file name}' }),
          file: Type.String({ format: 'binary' }),
        }),
        query: Type.Object({}),
        consumes: ['multipart/form-data'],
        response: {
          200: answers.upload,
          413: plain('The file is larger than LETHE_MAX_FILE_BYTES; nothing was kept.'),
        },
      },
      async (request) => upload(request, contextOf(request)),
    );

    async function upload(request: FastifyRequest, ctx: CallContext) {
      if (!request.isMultipart()) {
        throw badRequest('file/upload takes multipart/form-data with the fields attribute and file.');
      }
      let attribute: { entityId: string; name: string; value?: string } | undefined;
      let file: { staged: StagedFile; fileName: string; contentType: string } | undefined;
      let failure: unknown;
      try {
        for await (const part of request.parts()) {
          if (part.type === 'field') {
            if (part.fieldname !== 'attribute' || attribute || failure) {
              failure ??= badRequest(
                `The field ${shown(part.fieldname)} is not accepted; send attribute and file once.`,
              );
              continue;
            }
            try {
              attribute = parseAttribute(part.value);
              await files.requireEntity(ctx, attribute.entityId);
            } catch (error) {
              failure = error;
            }
            continue;
          }
          if (part.fieldname !== 'file' || file || failure) {
            failure ??= badRequest(
              `The file part ${shown(part.fieldname)} is not accepted; send one part named file.`,
            );
            for await (const _discarded of part.file);
            continue;
          }
          try {
            const contentType = CONTENT_TYPE.test(part.mimetype) ? part.mimetype : 'application/octet-stream';
            const staged = await files.stageUpload(ctx, contentType, part.file);
            file = { staged, fileName: part.filename, contentType };
            if (part.file.truncated) {
              throw tooLarge(
                `The file is larger than the limit of ${config.maxFileBytes} bytes; nothing was stored.`,
              );
            }
          } catch (error) {
            failure = error;
          }
        }
        if (failure) throw failure;
        if (!attribute) throw badRequest('The multipart field attribute is required.');
        if (!file) throw badRequest('The multipart file part named file is required.');
        const fileName = checkedFileName(attribute.value ?? file.fileName);
        return await files.completeUpload(ctx, file.staged, {
          entityId: attribute.entityId,
          name: attribute.name,
          fileName,
          contentType: file.contentType,
        });
      } catch (error) {
        if (file) await files.discardUpload(file.staged);
        throw multipartInputError(error);
      }
    }
  };
}

function parseAttribute(value: unknown) {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw badRequest('The attribute field is not valid JSON: send {"entityId", "name", "value"}.');
    }
  }
  const attribute = validated<{ entityId: string; name: string; value?: string }>(
    UploadAttribute,
    'attribute',
    parsed,
  );
  if (attribute.value !== undefined) checkedFileName(attribute.value);
  return attribute;
}

/** File names are data, shown back in Content-Disposition; never a path, never a control character. */
function checkedFileName(fileName: string): string {
  if (!FILE_NAME.test(fileName) || fileName === '.' || fileName === '..') {
    throw badRequest(
      `The file name ${shown(fileName)} is not accepted: a plain name without /, \\ or control characters.`,
    );
  }
  return fileName;
}
