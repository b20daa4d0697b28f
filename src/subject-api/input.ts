// Area B endpoints take their input from a JSON body, a form body (urlencoded or multipart) or the query
// string, whichever is present, for POST and GET alike. This module turns any of them into the one
// canonical shape of the endpoint and validates it strictly; a failure is a 400 sentence naming the
// field (and showing the offending value, so a bad attribute name is named). HTTP parsing only.
import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { badRequest, tooLarge } from '../errors.ts';
import { multipartInputError } from '../http/multipart-errors.ts';
import { shown } from '../datastore/subject-items.ts';
import { validated } from '../datastore/entity-input.ts';

type Fields = Record<string, unknown>;

export interface RawInput {
  where: 'body' | 'querystring';
  value: unknown;
}

/**
 * The fields of a multipart body, on an endpoint that takes no file. They are held in memory, so together
 * they are bound by the route's body limit (1 MiB), as a JSON or urlencoded body is: 413 past it, and for
 * a single field cut short by the parser's field size. At most one field more than the limit is read
 * before the refusal.
 */
async function multipartFields(request: FastifyRequest): Promise<Fields> {
  const limit = request.routeOptions.bodyLimit;
  const fields: Record<string, unknown[]> = {};
  let refused: string | undefined;
  let received = 0;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        refused ??= part.fieldname;
        part.file.resume();
        continue;
      }
      received += Buffer.byteLength(part.fieldname) + Buffer.byteLength(String(part.value));
      if (part.valueTruncated || received > limit)
        throw tooLarge(`The form's fields are larger than ${limit} bytes in total.`);
      const values = fields[part.fieldname] ?? [];
      values.push(part.value);
      fields[part.fieldname] = values;
    }
  } catch (error) {
    throw multipartInputError(error);
  }
  if (refused !== undefined)
    throw badRequest(`This endpoint takes no file; the part ${shown(refused)} is a file.`);
  return Object.fromEntries(
    Object.entries(fields).map(([name, values]) => [name, values.length === 1 ? values[0] : values]),
  );
}

/** The body when one was sent (a non-empty one), else the query string. */
export async function rawInput(request: FastifyRequest): Promise<RawInput> {
  if (request.isMultipart()) return { where: 'body', value: await multipartFields(request) };
  const sent =
    request.headers['content-length'] !== '0' && request.body !== undefined && request.body !== null;
  if (sent) return { where: 'body', value: request.body };
  return { where: 'querystring', value: { ...(request.query as Fields) } };
}

function asObject(raw: RawInput, expected: string): Fields {
  if (typeof raw.value !== 'object' || raw.value === null || Array.isArray(raw.value)) {
    throw badRequest(`The ${raw.where} must be an object with the fields ${expected}.`);
  }
  return { ...(raw.value as Fields) };
}

/** Single-subject endpoints: named fields; `entityID` (the seed's spelling for downloads) is `entityId`. */
export function objectInput<T>(raw: RawInput, schema: TSchema, expected: string): T {
  const fields = asObject(raw, expected);
  if ('entityID' in fields) {
    if ('entityId' in fields && fields.entityId !== fields.entityID) {
      throw badRequest('entityId and entityID differ; send one.');
    }
    fields.entityId = fields.entityID;
    delete fields.entityID;
  }
  return validated<T>(schema, raw.where, fields);
}

/**
 * Batch endpoints: a JSON body is the array itself (or an object holding it under `field`); a form or a
 * query string carries it in `field` as JSON text, or (for lists of strings) as repeated fields.
 */
export function arrayInput<T>(raw: RawInput, schema: TSchema, field: string, strings: boolean): T {
  let value: unknown = raw.value;
  if (!Array.isArray(value)) {
    const fields = asObject(raw, field);
    const extra = Object.keys(fields).find((name) => name !== field);
    if (extra !== undefined) throw badRequest(`${raw.where}.${extra} is not an accepted field.`);
    if (!(field in fields)) {
      throw badRequest(`${raw.where}.${field} is required (or send the JSON array itself as the body).`);
    }
    value = fields[field];
    if (typeof value === 'string') {
      const text = value.trim();
      if (text.startsWith('[')) {
        try {
          value = JSON.parse(text);
        } catch {
          throw badRequest(`${raw.where}.${field} is not a valid JSON array.`);
        }
      } else if (strings) {
        value = [value];
      } else {
        throw badRequest(`${raw.where}.${field} must be a JSON array.`);
      }
    }
  }
  return validated<T>(schema, raw.where, value);
}
