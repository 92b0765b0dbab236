// Media types and `$ref` helpers shared by the parts of the OpenAPI document.
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { JSON_API_MEDIA_TYPE } from '../../tools/media-types.ts';

export type OpenApiObject = Record<string, unknown>;

export { JSON_API_MEDIA_TYPE };
export const JSON_MEDIA_TYPE = 'application/json';
export const JSON_SCHEMA_MEDIA_TYPE = 'application/schema+json';

export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const parameterRef = (name: string): OpenApiObject => ({ $ref: `#/components/parameters/${name}` });
export const headerRef = (name: string): OpenApiObject => ({ $ref: `#/components/headers/${name}` });

/** Request bodies are accepted as either JSON media type (body-parsing.ts), with the same flat shape. */
export function jsonRequestBody(schemaName: string, description: string): OpenApiObject {
  return {
    description,
    required: true,
    content: {
      [JSON_MEDIA_TYPE]: { schema: schemaRef(schemaName) },
      [JSON_API_MEDIA_TYPE]: { schema: schemaRef(schemaName) },
    },
  };
}
