// Schemas of the subject data API: the canonical inputs (what a JSON body holds; form and query inputs
// are normalised into them first), the answers, and the plain-text error answers of the seed.
import Type, { type TSchema } from 'typebox';
import { named } from '../validation/schema-names.ts';
import {
  EchoedError,
  EntityCreateInput,
  EntityId,
  MAX_ITEMS,
  Name,
  Value,
} from '../datastore/entity-input.ts';

export { EntityCreateInput };

export const UserDeleteInput = Type.Object(
  {
    entityId: EntityId,
    attributeNames: Type.Union([
      Type.String({
        minLength: 1,
        maxLength: 20000,
        description: 'comma-separated <table>.<attribute> names',
      }),
      Type.Array(Type.String({ maxLength: 300 }), { minItems: 1, maxItems: MAX_ITEMS }),
    ]),
  },
  { additionalProperties: false },
);

export const ForgetInput = Type.Object({ entityId: EntityId }, { additionalProperties: false });

export const SarInput = Type.Object(
  { entityId: EntityId, email: Type.String({ format: 'email', maxLength: 320 }) },
  { additionalProperties: false },
);

export const DownloadInput = Type.Object(
  { entityId: EntityId, attributeName: Name },
  { additionalProperties: false },
);

export const UploadAttribute = Type.Object(
  {
    entityId: EntityId,
    name: Name,
    value: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'the file name' })),
  },
  { additionalProperties: false },
);

export const IdsInput = Type.Array(EntityId, { minItems: 1, maxItems: MAX_ITEMS });
export const IdentitiesInput = Type.Array(Type.String({ minLength: 1, maxLength: 65536 }), {
  minItems: 1,
  maxItems: MAX_ITEMS,
});

export const AttributeDeleteInput = Type.Array(
  Type.Object(
    {
      id: EntityId,
      attributes: Type.Array(Type.Object({ name: Name }, { additionalProperties: false }), {
        minItems: 1,
        maxItems: MAX_ITEMS,
      }),
      error: EchoedError,
    },
    { additionalProperties: false },
  ),
  { minItems: 1, maxItems: MAX_ITEMS },
);

export const AttributeUpdateInput = Type.Array(
  Type.Object(
    {
      id: EntityId,
      attributes: Type.Array(Type.Object({ name: Name, value: Value }, { additionalProperties: false }), {
        minItems: 1,
        maxItems: MAX_ITEMS,
      }),
      error: EchoedError,
    },
    { additionalProperties: false },
  ),
  { minItems: 1, maxItems: MAX_ITEMS },
);

const ItemError = Type.Union([Type.Null(), Type.Object({ code: Type.String(), message: Type.String() })]);
const AttributeValue = Type.Object({ name: Type.String(), value: Value });
const FileView = Type.Object({
  name: Type.String(),
  fileName: Type.String(),
  contentType: Type.String(),
  size: Type.Integer(),
});
const entityFields = {
  id: Type.String(),
  name: Type.String(),
  references: Type.Array(Type.Object({ parentId: Type.String(), parentName: Type.String() })),
  attributes: Type.Array(AttributeValue),
  files: Type.Array(FileView),
  createdAt: Type.String({ format: 'date-time' }),
};
const Entity = Type.Object(entityFields);
named('Entity', Entity);

export const answers = {
  userDelete: Type.Object({
    entityId: Type.String(),
    attributeNames: Type.Array(Type.String()),
    deleted: Type.Integer({ description: 'attributes removed' }),
  }),
  forget: Type.Object({
    entityId: Type.String(),
    erased: Type.Object({ entities: Type.Integer(), attributes: Type.Integer(), files: Type.Integer() }),
  }),
  sar: Type.Object({
    entityId: Type.String(),
    datastore: Type.String(),
    generatedAt: Type.String({ format: 'date-time' }),
    email: Type.String(),
    mailed: Type.Boolean(),
    mailError: Type.Optional(Type.String()),
    entities: Type.Array(Entity),
  }),
  create: Type.Array(
    Type.Object({
      id: Type.Union([Type.String(), Type.Null()]),
      name: Type.String(),
      references: Type.Array(
        Type.Object({ parentId: Type.String(), parentName: Type.String(), error: ItemError }),
      ),
      attributes: Type.Array(AttributeValue),
      error: ItemError,
    }),
  ),
  entityDelete: Type.Array(Type.Object({ id: Type.String(), error: ItemError })),
  attributeDelete: Type.Array(
    Type.Object({
      id: Type.String(),
      attributes: Type.Array(Type.Object({ name: Type.String() })),
      error: ItemError,
    }),
  ),
  attributeUpdate: Type.Array(
    Type.Object({ id: Type.String(), attributes: Type.Array(AttributeValue), error: ItemError }),
  ),
  getById: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.Optional(entityFields.name),
      references: Type.Optional(entityFields.references),
      attributes: Type.Optional(entityFields.attributes),
      files: Type.Optional(entityFields.files),
      createdAt: Type.Optional(entityFields.createdAt),
      error: ItemError,
    }),
  ),
  getByIdentity: Type.Array(
    Type.Object({ identity: Type.String(), entities: Type.Array(Entity), error: ItemError }),
  ),
  upload: Type.Object({
    entityId: Type.String(),
    name: Type.String(),
    value: Type.String({ description: 'the stored file name' }),
    contentType: Type.String(),
    size: Type.Integer(),
  }),
};

export const plain = (description: string) => ({
  description,
  content: { 'text/plain': { schema: { type: 'string' } } },
});

/** The seed's error answers: text/plain sentences. */
export const plainErrors = {
  400: plain('The request is malformed; the sentence names the bad field or attribute name.'),
  401: plain('No API key, an unknown or revoked key, or two different keys.'),
  403: plain('The key may not use the datastore named in the datastore header.'),
  404: plain('The entity (or the datastore) does not exist; the sentence names it.'),
  429: plain(
    'Too many requests for this key, or too many failed authentications from this address; see Retry-After (and RateLimit-* headers for the key limit).',
  ),
  503: plain('Maintenance mode; see Retry-After.'),
};

const QUERY_ON_POST =
  'POST form: optional, read only when the body is empty. Send the input in the body instead: a query string puts personal values in the URL, where proxies and access logs keep them.';

/** The POST form's query parameters: the GET form's, each optional and saying to use the body. */
export function queryOnPost(query: TSchema): TSchema {
  const properties = (query as { properties?: Record<string, TSchema & { description?: string }> })
    .properties;
  return Type.Object(
    Object.fromEntries(
      Object.entries(properties ?? {}).map(([name, schema]) => [
        name,
        Type.Optional({
          ...schema,
          description: schema.description ? `${schema.description}. ${QUERY_ON_POST}` : QUERY_ON_POST,
        }),
      ]),
    ),
  );
}

export const apiKeySecurity = [{ apiKey: [] as string[] }];

export const DatastoreHeader = Type.Object({
  datastore: Type.String({ description: 'the datastore the call acts on' }),
  'api-key': Type.Optional(Type.String({ description: 'the API key (or send Authorization: Bearer <key>)' })),
});
