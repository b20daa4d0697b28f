// The shapes the subject data API's calls take and answer (call context, item errors, entity views,
// attribute items) and the small rules on them (qualified names, duplicates, per-item answers), shared by
// SubjectService, the subject API's HTTP layer and the importer. No database and no HTTP here.
import { badRequest } from '../errors.ts';
import type { SubjectEntity } from './subject-store.ts';

/** Table and attribute names: identifiers, so `<table>.<attribute>` is unambiguous and safe to show. */
export const NAME = '^[A-Za-z_][A-Za-z0-9_-]{0,127}$';
const QUALIFIED_NAME = /^([A-Za-z_][A-Za-z0-9_-]{0,127})\.([A-Za-z_][A-Za-z0-9_-]{0,127})$/;

export interface CallContext {
  datastore: string;
  /** `api-key:<id>` */
  actor: string;
  requestId: string;
  clientAddress?: string;
}

export interface ItemError {
  code: 'not_found' | 'conflict' | 'unknown_parent' | 'parent_name_mismatch';
  message: string;
}

export interface EntityView {
  id: string;
  name: string;
  references: { parentId: string; parentName: string }[];
  attributes: { name: string; value: string | null }[];
  files: { name: string; fileName: string; contentType: string; size: number }[];
  createdAt: string;
}

export interface EntityInput {
  id?: string;
  name: string;
  references?: { parentId: string; parentName: string }[];
  attributes?: { name: string; value: string | null }[];
}

export interface CreatedItem {
  id: string | null;
  name: string;
  references: { parentId: string; parentName: string; error: ItemError | null }[];
  attributes: { name: string; value: string | null }[];
  error: ItemError | null;
}

export interface AttributeItemInput<Attribute> {
  id: string;
  attributes: Attribute[];
}

/** Quotes a caller-supplied string for a message: JSON-escaped and cut short. */
export const shown = (value: string) =>
  JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);

export const missingEntity = (id: string, datastore: string) =>
  `No entity with id ${shown(id)} in the datastore ${datastore}.`;

export function entityView(entity: SubjectEntity): EntityView {
  return {
    id: entity.id,
    name: entity.name,
    references: entity.parents,
    attributes: entity.attributes,
    files: entity.files,
    createdAt: entity.createdAt,
  };
}

/** Splits `users.email, orders.address` into qualified names; 400 naming the first malformed one. */
export function parseQualifiedNames(input: string | string[]): { table: string; attribute: string }[] {
  const names = (Array.isArray(input) ? input : input.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) {
    throw badRequest('attributeNames is required: comma-separated names of the form <table>.<attribute>.');
  }
  return names.map((name) => {
    const match = QUALIFIED_NAME.exec(name);
    if (!match) throw badRequest(`The attribute name ${shown(name)} is not of the form <table>.<attribute>.`);
    return { table: match[1] as string, attribute: match[2] as string };
  });
}

/** The answer of an attribute batch: each item as sent, with `error: null` or why its entity was not found. */
export function attributeItemAnswers<Attribute>(
  items: AttributeItemInput<Attribute>[],
  known: (id: string) => boolean,
  datastore: string,
) {
  return items.map((item) => ({
    id: item.id,
    attributes: item.attributes,
    error: known(item.id) ? null : { code: 'not_found' as const, message: missingEntity(item.id, datastore) },
  }));
}

export function duplicates(values: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const value of values) {
    if (seen.has(value)) return value;
    seen.add(value);
  }
  return undefined;
}
