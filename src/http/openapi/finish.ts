// Finishes the generated OpenAPI document so that a client generator can trust it
// (docs/decisions.md#an-api-a-client-generator-can-trust): each step below owns one property of the
// document, and runs on every route, so a route added later is covered without editing a list.
import { hoistNamedSchemas, listNullInNullableEnums } from './components.ts';
import { nameOperations, TAGS } from './operations.ts';
import { type OpenApiDocument, operationsOf } from './document.ts';
import { completeResponses } from './responses.ts';

export function finishDocument(document: OpenApiDocument): OpenApiDocument {
  nameOperations(document);
  completeResponses(document);
  listNullInNullableEnums(document);
  hoistNamedSchemas(document);
  const used = new Set(operationsOf(document).flatMap(({ operation }) => operation.tags ?? []));
  document.tags = TAGS.filter((tag) => used.has(tag.name));
  return document;
}
