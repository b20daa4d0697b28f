// Two validators: request bodies are checked strictly (no type coercion, no silently dropped fields:
// a wrong type or an unknown field is an error the caller sees); querystrings, params and headers arrive
// as text and are coerced to the declared types.
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { isEmailAddress } from '../validation/email.ts';

const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;

function makeAjv(coerceTypes: boolean) {
  const ajv = new Ajv({
    coerceTypes,
    removeAdditional: false,
    useDefaults: true,
    allErrors: false,
    strict: false,
  });
  addFormats(ajv);
  // ajv-formats' email pattern backtracks on long input; ours reads the value linearly after a length bound.
  ajv.addFormat('email', isEmailAddress);
  return ajv;
}

const strict = makeAjv(false);
const coercing = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strict : coercing).compile(schema as object);
