// `GET /me` (any API key, or the admin token) and `POST /admin/reload` (admin token): who the caller is,
// and the config file's resource definitions applied again.
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { ADMIN_SCHEME } from './admin-resource-paths.ts';
import { adminOperation } from './admin-operation.ts';
import { errorResponses } from './error-responses.ts';
import { headerRef, JSON_API_MEDIA_TYPE, schemaRef, type OpenApiObject } from './openapi-refs.ts';
import { AUTH_TAG } from './service-paths.ts';
import { callerSecurity } from './shared-components.ts';
import type { SvcConfig } from '../../config/config-types.ts';

export const IDENTITY_AND_RELOAD_SCHEMAS = ['MeDocument', 'AdminReloadDocument'] as const;
export const IDENTITY_AND_RELOAD_OPERATIONS = ['getMe', 'adminReload'] as const;

const nullable = (type: string): JsonSchema => ({ type: [type, 'null'] });

export function identityAndReloadSchemas(): Record<(typeof IDENTITY_AND_RELOAD_SCHEMAS)[number], JsonSchema> {
  const keyHolder: JsonSchema = {
    type: 'object',
    required: [
      'kind',
      'userId',
      'email',
      'name',
      'emailVerified',
      'role',
      'primaryRole',
      'allowedRoles',
      'access',
      'key',
    ],
    properties: {
      kind: { const: 'key' },
      userId: { type: 'string' },
      email: { type: 'string', format: 'email' },
      name: { type: 'string' },
      emailVerified: { type: 'boolean' },
      role: {
        type: 'string',
        description: 'The role in force for this request (X-Service-Role, else the primary role).',
      },
      primaryRole: { type: 'string' },
      allowedRoles: { type: 'array', items: { type: 'string' } },
      access: {
        ...schemaRef('KeyPermissions'),
        description:
          'What this request may do: per resource, the allowed actions with the fields each may use (delete: none); a refused action is left out. Row filters still apply.',
      },
      key: {
        type: 'object',
        required: ['id', 'name', 'start', 'permissions', 'expiresAt', 'rateLimit', 'remaining', 'requestCount'],
        properties: {
          id: { type: 'string' },
          name: nullable('string'),
          start: { type: 'string' },
          permissions: { oneOf: [schemaRef('KeyPermissions'), { type: 'null' }] },
          expiresAt: { type: ['string', 'null'], format: 'date-time' },
          rateLimit: {
            oneOf: [
              {
                type: 'object',
                required: ['max', 'timeWindow'],
                properties: {
                  max: { type: 'integer' },
                  timeWindow: { type: 'integer', description: 'Milliseconds.' },
                  limit: { type: 'integer' },
                  remaining: { type: 'integer', description: 'Requests left in the current window, this one counted.' },
                  resetSeconds: { type: 'integer' },
                },
                additionalProperties: false,
              },
              { type: 'null' },
            ],
          },
          remaining: { type: ['integer', 'null'], description: "Requests left of the key's quota; null without one." },
          requestCount: { type: 'integer' },
          console: {
            type: 'boolean',
            description: "Whether this is the web console's own key (POST /token with console: true).",
          },
          idleExpiresAt: {
            type: ['string', 'null'],
            format: 'date-time',
            description:
              'A console key stops working at this time unless a request comes before (each one renews it); null for other keys.',
          },
        },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  };
  const admin: JsonSchema = {
    type: 'object',
    required: ['kind'],
    properties: { kind: { const: 'admin' } },
    additionalProperties: false,
  };
  return {
    MeDocument: {
      type: 'object',
      required: ['data'],
      properties: {
        data: {
          type: 'object',
          required: ['type', 'id', 'attributes'],
          properties: { type: { const: 'me' }, id: { type: 'string' }, attributes: { oneOf: [keyHolder, admin] } },
          additionalProperties: false,
        },
      },
    },
    AdminReloadDocument: {
      type: 'object',
      required: ['meta'],
      properties: {
        meta: {
          type: 'object',
          required: ['changed', 'source', 'resources'],
          properties: {
            changed: { type: 'boolean', description: 'Whether the definitions in force changed.' },
            source: { type: 'string', description: 'The config file that was read.' },
            resources: { type: 'array', items: { type: 'string' } },
            hooks: { type: 'string', description: 'The hooks file loaded again, when the config names one.' },
          },
          additionalProperties: false,
        },
      },
    },
  };
}

export function identityAndReloadPaths(config: SvcConfig): Record<string, OpenApiObject> {
  return {
    '/me': {
      get: {
        tags: [AUTH_TAG],
        operationId: 'getMe',
        summary: 'Who the caller is',
        description:
          "The key holder's user, the role in force, the allowed roles, and the key's permissions and limits with what is left of them; the admin token answers `kind: admin`.",
        security: [...callerSecurity(config), { [ADMIN_SCHEME]: [] }],
        responses: {
          200: {
            description: 'The caller.',
            headers: { 'X-Request-Id': headerRef('XRequestId') },
            content: { [JSON_API_MEDIA_TYPE]: { schema: schemaRef('MeDocument') } },
          },
          ...errorResponses([
            'UNAUTHORIZED',
            'INVALID_API_KEY',
            'API_KEY_DISABLED',
            'API_KEY_EXPIRED',
            'FORBIDDEN',
            'RATE_LIMITED',
            'USAGE_EXCEEDED',
            'NOT_ACCEPTABLE',
            'INTERNAL_ERROR',
          ]),
        },
      },
    },
    '/admin/reload': {
      post: adminOperation({
        operationId: 'adminReload',
        summary: "Apply the config file's resource definitions again",
        description:
          'What SIGHUP does: the file is read again and its resource definitions applied here; every other node adopts them. The hooks file the config names is loaded again on this node. An invalid file, or a hooks file that does not load, is 400 BAD_REQUEST and a change that would lose data 409 CONFLICT; the running definitions and hooks stay.',
        success: {
          status: 200,
          description: 'The definitions were applied (or were already in force).',
          schema: 'AdminReloadDocument',
        },
        codes: ['BAD_REQUEST', 'CONFLICT'],
      }),
    },
  };
}
