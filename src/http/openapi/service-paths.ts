// The public, key-less paths: the OpenAPI description itself and the health probes; and the key scopes
// (`KeyPermissions`) that `/token`, `/me` and the admin API share.
import type { SvcConfig } from '../../config/config-types.ts';
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { keyPermissionsSchema } from '../bodies/key-permissions-schema.ts';
import { errorResponses } from './error-responses.ts';
import { headerRef, JSON_MEDIA_TYPE, type OpenApiObject } from './openapi-refs.ts';

export const SERVICE_SCHEMAS = ['KeyPermissions'] as const;
// Resource tags are resource names (lower snake_case), so these spellings can never clash with one.
export const AUTH_TAG = 'API keys';
export const META_TAG = 'Service';
export const SERVICE_OPERATIONS = ['getOpenApiJson', 'getOpenApiYaml', 'getHealth', 'getReadiness'] as const;

export function serviceSchemas(): Record<(typeof SERVICE_SCHEMAS)[number], JsonSchema> {
  return { KeyPermissions: keyPermissionsSchema() };
}

const status = (value: string): JsonSchema => ({
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', const: value } },
});

function plainResponse(description: string, mediaType: string, schema: JsonSchema): OpenApiObject {
  return { description, headers: { 'X-Request-Id': headerRef('XRequestId') }, content: { [mediaType]: { schema } } };
}

export function servicePaths(_config: SvcConfig): Record<string, OpenApiObject> {
  const meta = (
    operationId: string,
    summary: string,
    description: string,
    responses: OpenApiObject,
  ): OpenApiObject => ({
    get: { tags: [META_TAG], operationId, summary, description, security: [], responses },
  });
  return {
    '/openapi.json': meta(
      'getOpenApiJson',
      'This OpenAPI description, as JSON',
      'Every enabled resource, the admin API and the identity endpoints; public, so clients and code generators can fetch it.',
      {
        '200': plainResponse('The OpenAPI 3.1 document.', JSON_MEDIA_TYPE, { type: 'object' }),
        ...errorResponses(['INTERNAL_ERROR']),
      },
    ),
    '/openapi.yaml': meta(
      'getOpenApiYaml',
      'This OpenAPI description, as YAML',
      'The same document as `/openapi.json`, in YAML.',
      {
        '200': plainResponse('The OpenAPI 3.1 document.', 'application/yaml', { type: 'string' }),
        ...errorResponses(['INTERNAL_ERROR']),
      },
    ),
    '/healthz': meta(
      'getHealth',
      'Liveness: answers while the process runs',
      'Checks nothing else, so a load balancer can tell a hung process from a busy database.',
      {
        '200': plainResponse('The process is running.', JSON_MEDIA_TYPE, status('ok')),
      },
    ),
    '/readyz': meta(
      'getReadiness',
      'Readiness: the database answers and the config is applied',
      'Answers 503 `SERVICE_UNAVAILABLE` while the database does not answer, a table is missing, or the process is shutting down.',
      {
        '200': plainResponse('Ready to serve requests: the database answers and every table exists.', JSON_MEDIA_TYPE, {
          type: 'object',
          required: ['status', 'database', 'migrations'],
          properties: {
            status: { type: 'string', const: 'ready' },
            database: { type: 'string', const: 'ok' },
            migrations: { type: 'string', const: 'applied' },
          },
        }),
        ...errorResponses(['SERVICE_UNAVAILABLE']),
      },
    ),
  };
}
