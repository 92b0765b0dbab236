// The public, key-less paths: `/token` (docs/authentication.md), the OpenAPI description itself and the health probes.
import { LOGIN_THROTTLE_DEFAULTS } from '../../config/config-schema.ts';
import type { SvcConfig } from '../../config/config-types.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import type { JsonSchema } from '../field-types/index.ts';
import { BODY_CODES, errorResponses } from './error-responses.ts';
import { headerRef, JSON_MEDIA_TYPE, jsonRequestBody, schemaRef, type OpenApiObject } from './openapi-refs.ts';

export const SERVICE_SCHEMAS = ['KeyPermissions', 'TokenRequest', 'TokenResponse'] as const;
// Resource tags are resource names (lower snake_case), so these spellings can never clash with one.
export const AUTH_TAG = 'API keys';
export const META_TAG = 'Service';
export const SERVICE_OPERATIONS = ['createToken', 'getOpenApiJson', 'getOpenApiYaml', 'getHealth', 'getReadiness'] as const;

export function serviceSchemas(config: SvcConfig): Record<(typeof SERVICE_SCHEMAS)[number], JsonSchema> {
  const fieldList = (): JsonSchema => ({ type: 'array', items: { type: 'string' }, description: 'Field names; `"*"` for every field the role allows' });
  const { max, timeWindow } = config.apiKeys.rateLimit;
  const tighten =
    `May only tighten the global default of ${max} requests per ${timeWindow} ms: rateLimitMax at most ${max}, and ` +
    `rateLimitMax × ceil(${timeWindow} / rateLimitTimeWindow) at most ${max}.`;
  return {
    KeyPermissions: {
      type: 'object',
      description:
        'Scoped permissions: resource → action → fields. Intersected with the role on every request; a resource or ' +
        'action left out is denied (403 `KEY_PERMISSION_DENIED`).',
      additionalProperties: {
        type: 'object',
        properties: { read: fieldList(), create: fieldList(), update: fieldList(), delete: fieldList() },
        additionalProperties: false,
      },
      examples: [{ posts: { read: ['title'], create: ['title', 'body'], update: ['*'], delete: [] } }],
    },
    TokenRequest: {
      type: 'object',
      required: ['email', 'password'],
      properties: {
        email: { type: 'string', format: 'email' },
        password: { type: 'string', minLength: 1, writeOnly: true },
        permissions: { ...schemaRef('KeyPermissions'), description: "Omitted: the key has the full permissions of the user's role." },
        name: { type: 'string', description: 'Label of the key' },
        metadata: { type: 'object', description: 'Custom metadata kept with the key' },
        expiresIn: { type: 'integer', minimum: 1, description: 'Seconds until the key expires; omitted: never' },
        rateLimitMax: { type: 'integer', minimum: 1, description: `Requests per window. ${tighten}` },
        rateLimitTimeWindow: { type: 'integer', minimum: 1, description: `Window length in milliseconds. ${tighten}` },
        refillInterval: { type: 'integer', minimum: 1, description: 'Milliseconds between refills of the request quota' },
        refillAmount: { type: 'integer', minimum: 1, description: 'Requests restored per refill' },
        remaining: { type: 'integer', minimum: 0, description: 'Request quota; when used up: 429 `USAGE_EXCEEDED`' },
      },
    },
    TokenResponse: {
      type: 'object',
      description: 'The new API key. `key` is shown only in this response; only a hash is stored.',
      required: ['key', 'id'],
      properties: {
        key: { type: 'string', pattern: '^svc_', description: 'The full key, for `Authorization: Bearer`' },
        id: { type: 'string' },
        name: { type: ['string', 'null'] },
        start: { type: ['string', 'null'], description: 'First characters of the key, for secret scanning' },
        prefix: { type: ['string', 'null'] },
        expiresAt: { type: ['string', 'null'], format: 'date-time' },
        permissions: { anyOf: [schemaRef('KeyPermissions'), { type: 'null' }] },
      },
    },
  };
}

const status = (value: string): JsonSchema => ({
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', const: value } },
});

function plainResponse(description: string, mediaType: string, schema: JsonSchema): OpenApiObject {
  return { description, headers: { 'X-Request-Id': headerRef('XRequestId') }, content: { [mediaType]: { schema } } };
}

export function servicePaths(config: SvcConfig): Record<string, OpenApiObject> {
  const tokenErrors: ErrorCode[] = [...BODY_CODES, 'INVALID_RESOURCE_DATA', 'INVALID_PERMISSIONS', 'INVALID_CREDENTIALS', 'INTERNAL_ERROR'];
  if (config.auth.requireEmailVerification) tokenErrors.push('EMAIL_NOT_VERIFIED');
  // Too many failed attempts for the email or from the caller's address.
  if ((config.auth.loginThrottle ?? LOGIN_THROTTLE_DEFAULTS).enabled) tokenErrors.push('RATE_LIMITED');
  const meta = (operationId: string, summary: string, responses: OpenApiObject): OpenApiObject => ({
    get: { tags: [META_TAG], operationId, summary, security: [], responses },
  });
  return {
    '/token': {
      post: {
        tags: [AUTH_TAG],
        operationId: 'createToken',
        summary: 'Issue an API key',
        description: "Exchanges a user's email and password for a long-lived API key. Needs no Authorization header.",
        security: [],
        requestBody: jsonRequestBody('TokenRequest', 'Credentials and options of the new key, as a flat JSON object.'),
        responses: {
          '201': plainResponse('The key was issued.', JSON_MEDIA_TYPE, schemaRef('TokenResponse')),
          ...errorResponses(tokenErrors),
        },
      },
    },
    '/openapi.json': meta('getOpenApiJson', 'This OpenAPI description, as JSON', {
      '200': plainResponse('The OpenAPI 3.1 document.', JSON_MEDIA_TYPE, { type: 'object' }),
      ...errorResponses(['INTERNAL_ERROR']),
    }),
    '/openapi.yaml': meta('getOpenApiYaml', 'This OpenAPI description, as YAML', {
      '200': plainResponse('The OpenAPI 3.1 document.', 'application/yaml', { type: 'string' }),
      ...errorResponses(['INTERNAL_ERROR']),
    }),
    '/healthz': meta('getHealth', 'Liveness: answers while the process runs', {
      '200': plainResponse('The process is running.', JSON_MEDIA_TYPE, status('ok')),
    }),
    '/readyz': meta('getReadiness', 'Readiness: the database answers and the config is applied', {
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
    }),
  };
}
