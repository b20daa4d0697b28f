// SCIM's own description of this service (RFC 7644 section 4): what it supports, its resource types and
// the attributes of their schemas that Lethe keeps. SCIM clients read these instead of an OpenAPI document.
import { ERROR_SCHEMA, GROUP_SCHEMA, MAX_RESULTS, USER_SCHEMA } from './protocol.ts';

const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

export function serviceProviderConfig(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    documentationUri: 'https://github.com/lethe-privacy/lethe/blob/main/docs/operators.md',
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: 'A bearer token of a Lethe client holding the scope scim (POST /v1/oauth/token).',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

function resourceType(base: string, name: 'User' | 'Group') {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: name,
    name,
    endpoint: `/${name}s`,
    description: name === 'User' ? 'An operator of Lethe' : 'A group whose name maps to Lethe roles',
    schema: name === 'User' ? USER_SCHEMA : GROUP_SCHEMA,
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/${name}` },
  };
}

export function resourceTypes(base: string) {
  const resources = [resourceType(base, 'User'), resourceType(base, 'Group')];
  return { schemas: [LIST], totalResults: 2, startIndex: 1, itemsPerPage: 2, Resources: resources };
}

export function resourceTypeOf(base: string, name: string) {
  return name === 'User' || name === 'Group' ? resourceType(base, name) : undefined;
}

const attribute = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

function schema(base: string, id: string) {
  if (id === USER_SCHEMA) {
    return {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
      id,
      name: 'User',
      description: 'An operator of Lethe',
      attributes: [
        attribute('userName', 'string', { required: true, uniqueness: 'server', mutability: 'immutable' }),
        attribute('displayName', 'string'),
        attribute('name', 'complex', { subAttributes: [attribute('formatted', 'string')] }),
        attribute('emails', 'complex', {
          multiValued: true,
          subAttributes: [
            attribute('value', 'string'),
            attribute('type', 'string'),
            attribute('primary', 'boolean'),
          ],
        }),
        attribute('active', 'boolean'),
        attribute('externalId', 'string', { caseExact: true }),
        attribute('groups', 'complex', { multiValued: true, mutability: 'readOnly' }),
      ],
      meta: { resourceType: 'Schema', location: `${base}/Schemas/${id}` },
    };
  }
  if (id === GROUP_SCHEMA) {
    return {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
      id,
      name: 'Group',
      description: 'A group whose display name maps to Lethe roles (LETHE_OIDC_ROLE_MAP)',
      attributes: [
        attribute('displayName', 'string', { required: true, uniqueness: 'server' }),
        attribute('externalId', 'string', { caseExact: true }),
        attribute('members', 'complex', {
          multiValued: true,
          subAttributes: [
            attribute('value', 'string', { mutability: 'immutable' }),
            attribute('display', 'string'),
          ],
        }),
      ],
      meta: { resourceType: 'Schema', location: `${base}/Schemas/${id}` },
    };
  }
  return undefined;
}

export function schemas(base: string) {
  const resources = [schema(base, USER_SCHEMA), schema(base, GROUP_SCHEMA)];
  return { schemas: [LIST], totalResults: 2, startIndex: 1, itemsPerPage: 2, Resources: resources };
}

export function schemaOf(base: string, id: string) {
  return schema(base, id);
}

export { ERROR_SCHEMA };
