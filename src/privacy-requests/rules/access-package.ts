// The access package of a privacy request: what its access rules collected, as JSON, kept in a local
// storage destination as `<data dir>/<location>/<privacy request id>.json`. The package is personal data,
// so the file holds it sealed (AES-256-GCM under the Keyring purpose `access-package`, bound to the
// request id); only the envelope around the box is readable. This module never logs or returns a package
// to anyone but its caller, and never writes outside the destination's folder.
import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import Type from 'typebox';
import type { Config } from '../../config.ts';
import type { Keyring } from '../../crypto/keyring.ts';
import { openText, seal } from '../../crypto/secret-box.ts';
import type { SubjectEntity } from '../../datastore/subject-store.ts';
import type { Services } from '../../services.ts';
import type { TargetSelection } from './targets.ts';
import { listStorageDestinations } from './run-repository.ts';
import { hooksOf } from '../lifecycle.ts';

const Strict = { additionalProperties: false } as const;

export const PackageEntitySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String({ description: "the entity's table" }),
    references: Type.Array(Type.Object({ parentId: Type.String(), parentName: Type.String() }, Strict)),
    attributes: Type.Array(
      Type.Object({ name: Type.String(), value: Type.Union([Type.String(), Type.Null()]) }, Strict),
    ),
    files: Type.Array(
      Type.Object(
        { name: Type.String(), fileName: Type.String(), contentType: Type.String(), size: Type.Integer() },
        Strict,
      ),
      { description: 'file attributes: metadata only, not contents' },
    ),
    createdAt: Type.String({ format: 'date-time' }),
  },
  Strict,
);
export type PackageEntity = Type.Static<typeof PackageEntitySchema>;

/** The access package, as stored (sealed) and as `readAccessPackage` answers it. */
export const AccessPackageSchema = Type.Object(
  {
    privacy_request_id: Type.String(),
    policy_key: Type.String(),
    generated_at: Type.String({ format: 'date-time' }),
    rules: Type.Array(
      Type.Object(
        { key: Type.String(), targets: Type.Array(Type.String()), storage_destination_key: Type.String() },
        Strict,
      ),
      { description: 'the access rules whose targets chose what the package holds' },
    ),
    datastores: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          matched_entities: Type.Integer({
            description: 'entities found by the identities, with descendants',
          }),
          entities: Type.Array(PackageEntitySchema),
        },
        Strict,
      ),
      { description: 'every datastore searched, in name order' },
    ),
    manual_systems: Type.Optional(
      Type.Array(
        Type.Object(
          {
            key: Type.String(),
            name: Type.String(),
            data: Type.Record(Type.String(), Type.String(), { description: 'field name -> value' }),
          },
          Strict,
        ),
        { description: 'what the access tasks of manual systems gave (docs/human-steps.md)' },
      ),
    ),
  },
  { ...Strict, description: 'What the access rules of a privacy request collected from the datastores.' },
);
export type AccessPackage = Type.Static<typeof AccessPackageSchema>;

const ENVELOPE_FORMAT = 'lethe-sealed-access-package';
const ENVELOPE_VERSION = 1;

/** Privacy request ids become file names: only plain id characters may reach the file system. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,200}$/;

export function isStorableRequestId(id: string): boolean {
  return SAFE_ID.test(id);
}

/**
 * The entities of a matched tree that the targets select, each with only its selected attributes and
 * files. An entity whose table is wholly selected stays even when it has no attribute left; an entity
 * of a partly selected table stays when it has at least one selected attribute or file.
 */
export function selectForPackage(entities: readonly SubjectEntity[], selection: TargetSelection) {
  return entities.flatMap((entity): PackageEntity[] => {
    if (!selection.concernsTable(entity.name)) return [];
    const attributes = entity.attributes.filter((attribute) =>
      selection.selectsAttribute(entity.name, attribute.name),
    );
    const files = entity.files.filter((file) => selection.selectsAttribute(entity.name, file.name));
    if (!selection.selectsTable(entity.name) && attributes.length === 0 && files.length === 0) return [];
    return [
      {
        id: entity.id,
        name: entity.name,
        references: entity.parents,
        attributes,
        files,
        createdAt: entity.createdAt,
      },
    ];
  });
}

function destinationFolder(config: Pick<Config, 'dataDir'>, location: string): string {
  return path.resolve(config.dataDir, location);
}

function packageFile(config: Pick<Config, 'dataDir'>, location: string, privacyRequestId: string): string {
  if (!isStorableRequestId(privacyRequestId)) {
    throw new Error('A privacy request id may only hold letters, digits, "_" and "-".');
  }
  return path.join(destinationFolder(config, location), `${privacyRequestId}.json`);
}

const associatedData = (privacyRequestId: string) => `access-package:${privacyRequestId}`;

/** Seals and stores the package (replacing an earlier one atomically); answers the file's size in bytes. */
export async function storeAccessPackage(
  config: Pick<Config, 'dataDir'>,
  keyring: Keyring,
  location: string,
  accessPackage: AccessPackage,
): Promise<number> {
  const id = accessPackage.privacy_request_id;
  const file = packageFile(config, location, id);
  const sealed = seal(keyring.secretKey('access-package'), JSON.stringify(accessPackage), associatedData(id));
  const envelope = `${JSON.stringify({
    format: ENVELOPE_FORMAT,
    version: ENVELOPE_VERSION,
    privacy_request_id: id,
    sealed: sealed.toString('base64'),
  })}\n`;
  const folder = path.dirname(file);
  const staging = `${file}.${randomUUID()}.tmp`;
  // Erasure starts once this returns, so the package must survive a power cut: flush the file before the
  // rename and the folder after it.
  try {
    const handle = await openCreatingFolder(staging, folder);
    try {
      await handle.writeFile(envelope);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(staging, file);
  } catch (error) {
    await rm(staging, { force: true });
    throw error;
  }
  const directory = await open(folder, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
  return Buffer.byteLength(envelope);
}

/**
 * Creates `file` (exclusive, owner-only) in `folder`, making the folder first only when it is missing: the
 * folder exists for every package but the first, so a package costs no mkdir of its own.
 */
async function openCreatingFolder(file: string, folder: string) {
  try {
    return await open(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(folder, { recursive: true, mode: 0o700 });
    return open(file, 'wx', 0o600);
  }
}

/** The package stored in this destination for the request, opened; null when there is none. */
export async function loadAccessPackage(
  config: Pick<Config, 'dataDir'>,
  keyring: Keyring,
  location: string,
  privacyRequestId: string,
): Promise<{ accessPackage: AccessPackage; bytes: number } | null> {
  if (!isStorableRequestId(privacyRequestId)) return null;
  let text: string;
  try {
    text = await readFile(packageFile(config, location, privacyRequestId), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const damaged = () =>
    new Error(
      `The access package of ${privacyRequestId} cannot be opened: the file is damaged or was sealed under another key.`,
    );
  let envelope: { format?: unknown; version?: unknown; sealed?: unknown };
  try {
    envelope = JSON.parse(text) as typeof envelope;
  } catch {
    throw damaged();
  }
  if (
    envelope.format !== ENVELOPE_FORMAT ||
    envelope.version !== ENVELOPE_VERSION ||
    typeof envelope.sealed !== 'string'
  ) {
    throw damaged();
  }
  let opened: string;
  try {
    opened = openText(
      keyring.secretKey('access-package'),
      Buffer.from(envelope.sealed, 'base64'),
      associatedData(privacyRequestId),
    );
  } catch {
    throw damaged();
  }
  return { accessPackage: JSON.parse(opened) as AccessPackage, bytes: Buffer.byteLength(text) };
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * One package out of the packages a request left in several destinations (access rules may store to
 * different destinations): rules and datastores joined, an entity present in several packages appears
 * once with the union of its selected attributes and files.
 */
export function mergeAccessPackages(packages: readonly AccessPackage[]): AccessPackage {
  const [first, ...others] = packages;
  if (!first) throw new Error('mergeAccessPackages needs at least one package');
  if (others.length === 0) return first;
  const datastores = new Map<string, { matched: number; entities: Map<string, PackageEntity> }>();
  for (const accessPackage of packages) {
    for (const datastore of accessPackage.datastores) {
      const merged = datastores.get(datastore.name) ?? {
        matched: 0,
        entities: new Map<string, PackageEntity>(),
      };
      merged.matched = Math.max(merged.matched, datastore.matched_entities);
      for (const entity of datastore.entities) {
        const known = merged.entities.get(entity.id);
        if (!known) {
          merged.entities.set(entity.id, structuredClone(entity));
          continue;
        }
        const attributeNames = new Set(known.attributes.map((attribute) => attribute.name));
        known.attributes.push(
          ...entity.attributes.filter((attribute) => !attributeNames.has(attribute.name)),
        );
        known.attributes.sort(byName);
        const fileNames = new Set(known.files.map((file) => file.name));
        known.files.push(...entity.files.filter((file) => !fileNames.has(file.name)));
        known.files.sort(byName);
      }
      datastores.set(datastore.name, merged);
    }
  }
  return {
    privacy_request_id: first.privacy_request_id,
    policy_key: first.policy_key,
    generated_at: packages.map((accessPackage) => accessPackage.generated_at).sort()[0] ?? first.generated_at,
    rules: packages.flatMap((accessPackage) => accessPackage.rules),
    datastores: [...datastores.entries()]
      .sort(([a], [b]) => byName({ name: a }, { name: b }))
      .map(([name, merged]) => ({
        name,
        matched_entities: merged.matched,
        entities: [...merged.entities.values()],
      })),
  };
}

/** The request's access package (joined across storage destinations); null when none was stored. */
export async function readAccessPackage(
  services: Pick<Services, 'db' | 'keyring' | 'config'>,
  privacyRequestId: string,
): Promise<AccessPackage | null> {
  if (!isStorableRequestId(privacyRequestId)) return null;
  const packages: AccessPackage[] = [];
  for (const destination of await listStorageDestinations(services.db)) {
    const stored = await loadAccessPackage(
      services.config,
      services.keyring,
      destination.location,
      privacyRequestId,
    );
    if (stored) packages.push(stored.accessPackage);
  }
  const added: Record<string, unknown> = {};
  for (const hook of hooksOf('accessResults')) Object.assign(added, await hook(services, privacyRequestId));
  if (packages.length === 0 && Object.keys(added).length === 0) return null;
  const merged: AccessPackage =
    packages.length > 0
      ? mergeAccessPackages(packages)
      : {
          privacy_request_id: privacyRequestId,
          policy_key: '',
          generated_at: new Date().toISOString(),
          rules: [],
          datastores: [],
        };
  // What the features add (what access tasks gave, under manual_systems) has its place in the schema above.
  return { ...merged, ...added } as AccessPackage;
}
