// Two validators: request bodies are checked strictly (no type coercion, no silently dropped fields:
// a wrong type or an unknown field is an error the caller sees); querystrings, params and headers arrive
// as text and are coerced to the declared types.
// The app compiles each route's schemas on their first use (schema-compilation.ts).
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { bulkEnvelope, MAX_BULK_ITEMS, PER_ITEM_VALIDATION } from '../validation/bulk.ts';
import { isEmailAddress } from '../validation/email.ts';
import { MESSAGE_AJV_OPTIONS } from '../validation/messages.ts';

const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;

function makeAjv(coerceTypes: boolean) {
  const ajv = new Ajv({
    coerceTypes,
    removeAdditional: false,
    useDefaults: true,
    allErrors: false,
    strict: false,
    ...MESSAGE_AJV_OPTIONS,
  });
  addFormats(ajv);
  // ajv-formats' email pattern backtracks on long input; ours reads the value linearly after a length bound.
  ajv.addFormat('email', isEmailAddress);
  return ajv;
}

const strict = makeAjv(false);
const coercing = makeAjv(true);

/**
 * A bulk body (marked by BulkBody) is checked here only as an array of objects: its items are checked one
 * by one in the service, so that a bad item is reported in `failed` instead of refusing the whole body.
 */
export const compileValidator: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const shape = schema as { [PER_ITEM_VALIDATION]?: boolean; maxItems?: number };
  if (httpPart === 'body' && shape[PER_ITEM_VALIDATION] === true)
    return strict.compile(bulkEnvelope(shape.maxItems ?? MAX_BULK_ITEMS));
  return (httpPart === 'body' ? strict : coercing).compile(schema as object);
};
