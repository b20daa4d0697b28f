// The file attributes of the subject data API, without HTTP: staging an upload while it streams, binding
// it to its entity (audited), discarding it, and downloading a file (audited). Bytes go through
// file-store.ts; a file's content is never logged or audited.
import type { Readable } from 'node:stream';
import { appendAudit, recordAudit } from '../audit/audit-log.ts';
import type { Config } from '../config.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Database } from '../db/database.ts';
import { notFound } from '../errors.ts';
import {
  bindStaged,
  discardStaged,
  findFile,
  readFile,
  type StagedFile,
  type StoredFile,
  stageUpload,
} from './file-store.ts';
import { entityTables, isEntityId } from './subject-store.ts';
import type { CallContext } from './subject-items.ts';
import { shown, missingEntity } from './subject-items.ts';

export class SubjectFiles {
  readonly #db: Database;
  readonly #keyring: Keyring;
  readonly #config: Pick<Config, 'maxFileBytes'>;

  constructor(db: Database, keyring: Keyring, config: Pick<Config, 'maxFileBytes'>) {
    this.#db = db;
    this.#keyring = keyring;
    this.#config = config;
  }

  /** 404 unless the entity exists in the datastore (checked before an upload is read). */
  async requireEntity(ctx: CallContext, entityId: string) {
    const tables = await entityTables(this.#db, ctx.datastore, [entityId]);
    if (!isEntityId(entityId) || !tables.has(entityId.toLowerCase())) {
      throw notFound(missingEntity(entityId, ctx.datastore));
    }
  }

  stageUpload(ctx: CallContext, contentType: string, source: AsyncIterable<Buffer>): Promise<StagedFile> {
    return stageUpload(
      this.#db,
      this.#keyring,
      ctx.datastore,
      contentType,
      source,
      this.#config.maxFileBytes,
    );
  }

  discardUpload(staged: StagedFile) {
    return discardStaged(this.#db, staged.id);
  }

  /** Binds a staged upload to `<entity>.<name>`, replacing the previous file of that attribute. */
  async completeUpload(
    ctx: CallContext,
    staged: StagedFile,
    target: { entityId: string; name: string; fileName: string; contentType: string },
  ) {
    if (!isEntityId(target.entityId)) throw notFound(missingEntity(target.entityId, ctx.datastore));
    const entityId = target.entityId.toLowerCase();
    await this.#db.transaction(async (tx) => {
      await bindStaged(tx, this.#keyring, ctx.datastore, staged, {
        entityId,
        attributeName: target.name,
        fileName: target.fileName,
      });
      await recordAudit(tx, {
        action: 'file.upload',
        datastore: ctx.datastore,
        entityId,
        actor: ctx.actor,
        requestId: ctx.requestId,
        clientAddress: ctx.clientAddress,
        details: { attribute: target.name, size: staged.size },
      });
    });
    return {
      entityId,
      name: target.name,
      value: target.fileName,
      contentType: target.contentType,
      size: staged.size,
    };
  }

  /** /api/file/download: the file's metadata and a stream of its bytes. */
  async download(
    ctx: CallContext,
    input: { entityId: string; attributeName: string },
  ): Promise<{ file: StoredFile; body: Readable }> {
    if (!isEntityId(input.entityId)) throw notFound(missingEntity(input.entityId, ctx.datastore));
    const entityId = input.entityId.toLowerCase();
    await this.requireEntity(ctx, entityId);
    const file = await findFile(this.#db, this.#keyring, ctx.datastore, entityId, input.attributeName);
    if (!file) {
      throw notFound(`The entity ${entityId} has no file attribute ${shown(input.attributeName)}.`);
    }
    await appendAudit(this.#db, {
      action: 'file.download',
      datastore: ctx.datastore,
      entityId,
      actor: ctx.actor,
      requestId: ctx.requestId,
      clientAddress: ctx.clientAddress,
      details: { attribute: input.attributeName, size: file.size },
    });
    return { file, body: readFile(this.#db, this.#keyring, ctx.datastore, file) };
  }
}
