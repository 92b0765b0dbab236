// The admin user and API key endpoints (/admin/users…, /admin/keys…), with the bodies
// the routes check (http/bodies/) and the objects their routes render.
import { USER_SEARCH_MAX_LENGTH } from '../../auth/identity/user-search.ts';
import type { JsonSchema } from '../../resources/field-types/index.ts';
import {
  adminOperation,
  offsetPageParameters,
  listDocument,
  nullableTimestamp,
  pathParameter,
  queryParameter,
  resourceObject,
  singleDocument,
  timestamp,
} from './admin-operation.ts';
import { BODY_CODES } from './error-responses.ts';
import type { OpenApiObject } from './openapi-refs.ts';
import { adminKeyPermissionsSchema, adminKeyUpdateSchema } from '../bodies/admin-key-body.ts';
import { adminUserCreateSchema, adminUserUpdateSchema } from '../bodies/admin-user-body.ts';

export const ADMIN_ACCOUNT_SCHEMAS = [
  'AdminUserAttributes',
  'AdminUser',
  'AdminUserDocument',
  'AdminUserListDocument',
  'AdminUserCreatedDocument',
  'AdminPasswordLinkDocument',
  'AdminUserUpdateBody',
  'AdminUserCreateBody',
  'AdminUserCreatedDocument',
  'AdminApiKeyAttributes',
  'AdminApiKey',
  'AdminApiKeyDocument',
  'AdminApiKeyListDocument',
  'AdminApiKeyUpdateBody',
] as const;
export const ADMIN_ACCOUNT_OPERATIONS = [
  'adminListUsers',
  'adminCreateUser',
  'adminSendPasswordLink',
  'adminGetUser',
  'adminUpdateUser',
  'adminDeleteUser',
  'adminListApiKeys',
  'adminGetApiKey',
  'adminUpdateApiKey',
  'adminDeleteApiKey',
] as const;

function userAttributes(): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    name: { type: 'string' },
    email: { type: 'string' },
    emailVerified: { type: 'boolean' },
    image: { type: ['string', 'null'] },
    primaryRole: { type: 'string' },
    allowedRoles: {
      type: 'string',
      description: 'JSON-encoded array of the roles the user may switch to',
      examples: ['["editor","viewer"]'],
    },
    createdAt: timestamp(),
    updatedAt: timestamp(),
  };
  return { type: 'object', required: Object.keys(properties), properties, additionalProperties: false };
}

function keyAttributes(): JsonSchema {
  const count = (): JsonSchema => ({ type: ['integer', 'null'], minimum: 0 });
  const properties: Record<string, JsonSchema> = {
    name: { type: ['string', 'null'] },
    prefix: { type: 'string' },
    start: { type: 'string', description: 'The first characters of the key, to recognise it' },
    userId: { type: 'string' },
    enabled: { type: 'boolean' },
    permissions: {
      ...adminKeyPermissionsSchema(),
      type: ['object', 'null'],
      description: 'null: the role’s permissions',
    },
    metadata: { type: ['object', 'null'] },
    expiresAt: nullableTimestamp(),
    rateLimitEnabled: { type: 'boolean' },
    rateLimitMax: count(),
    rateLimitTimeWindow: { ...count(), description: 'Milliseconds' },
    refillInterval: { ...count(), description: 'Milliseconds' },
    refillAmount: count(),
    requestCount: { type: 'integer', minimum: 0 },
    remaining: { ...count(), description: 'Requests left in the quota; null: no quota' },
    lastRequest: nullableTimestamp(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
    console: {
      type: 'boolean',
      description: "The web console's own key (ends when unused for 30 minutes); listed only with includeConsole=true",
    },
  };
  return { type: 'object', required: Object.keys(properties), properties, additionalProperties: false };
}

export function adminAccountSchemas(): Record<(typeof ADMIN_ACCOUNT_SCHEMAS)[number], JsonSchema> {
  return {
    AdminUserAttributes: userAttributes(),
    AdminUser: resourceObject('users', 'AdminUserAttributes', '/admin/users/{id}'),
    AdminUserDocument: singleDocument('AdminUser'),
    AdminUserListDocument: listDocument('AdminUser'),
    AdminUserUpdateBody: adminUserUpdateSchema(),
    AdminUserCreateBody: adminUserCreateSchema(),
    AdminUserCreatedDocument: createdUserDocument(),
    AdminPasswordLinkDocument: {
      type: 'object',
      required: ['meta'],
      properties: {
        meta: {
          type: 'object',
          required: ['sentTo'],
          properties: { sentTo: { type: 'string', description: 'The email address the link was sent to.' } },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
    AdminApiKeyAttributes: keyAttributes(),
    AdminApiKey: resourceObject('api-keys', 'AdminApiKeyAttributes', '/admin/keys/{id}'),
    AdminApiKeyDocument: singleDocument('AdminApiKey'),
    AdminApiKeyListDocument: listDocument('AdminApiKey'),
    AdminApiKeyUpdateBody: adminKeyUpdateSchema(),
  };
}

/** The user as created, and whether an invitation to choose a password was mailed. */
function createdUserDocument(): JsonSchema {
  const document = singleDocument('AdminUser');
  return {
    ...document,
    required: ['data', 'meta'],
    properties: {
      ...(document.properties as Record<string, JsonSchema>),
      meta: {
        type: 'object',
        required: ['invitationSent'],
        properties: { invitationSent: { type: 'boolean' } },
        additionalProperties: false,
      },
    },
  };
}

export function adminAccountPaths(): Record<string, OpenApiObject> {
  const userId = () => pathParameter('id', 'User id.');
  const keyId = () => pathParameter('id', 'API key id.');
  return {
    '/admin/users': {
      get: adminOperation({
        operationId: 'adminListUsers',
        summary: 'List users',
        description: 'Users of the identity component with their roles and verification state, oldest first.',
        parameters: [
          queryParameter('email', 'Only the user with this email.'),
          queryParameter(
            'search',
            'Only users whose email or name contains this text (case-insensitive; `%` and `_` match themselves).',
            { type: 'string', minLength: 1, maxLength: USER_SEARCH_MAX_LENGTH },
          ),
          ...offsetPageParameters(),
        ],
        success: { status: 200, description: 'A page of users.', schema: 'AdminUserListDocument' },
        codes: ['INVALID_QUERY_PARAMS'],
      }),
      post: adminOperation({
        operationId: 'adminCreateUser',
        summary: 'Create a user',
        description:
          'With a password, or `invite: true` to mail the user a link to choose one; `meta.invitationSent` says which.',
        body: { schema: 'AdminUserCreateBody', description: 'The new user.' },
        success: {
          status: 201,
          description: 'The user as created.',
          schema: 'AdminUserCreatedDocument',
          location: true,
        },
        codes: ['INVALID_RESOURCE_DATA', 'CONFLICT'],
      }),
    },
    '/admin/users/{id}/password-reset': {
      post: adminOperation({
        operationId: 'adminSendPasswordLink',
        summary: 'Send a user a password-reset link',
        description:
          'Mails the user a single-use link to choose a new password (the password-reset flow, with its expiry). Takes no body. ' +
          '409 when password sign-in is off.',
        parameters: [userId()],
        success: { status: 202, description: 'The link is on its way.', schema: 'AdminPasswordLinkDocument' },
        codes: ['RESOURCE_NOT_FOUND', 'CONFLICT', 'INVALID_RESOURCE_DATA', ...BODY_CODES],
      }),
    },
    '/admin/users/{id}': {
      get: adminOperation({
        operationId: 'adminGetUser',
        summary: 'One user',
        description: 'The user with their primary role, allowed roles and verification state.',
        parameters: [userId()],
        success: { status: 200, description: 'The user.', schema: 'AdminUserDocument' },
        codes: ['RESOURCE_NOT_FOUND'],
      }),
      patch: adminOperation({
        operationId: 'adminUpdateUser',
        summary: "Change a user's roles",
        description:
          'Sets the primary role and the roles the user may switch to with `X-Service-Role`; only roles the configuration defines are accepted.',
        parameters: [userId()],
        body: { schema: 'AdminUserUpdateBody', description: 'The fields to change.' },
        success: { status: 200, description: 'The user as changed.', schema: 'AdminUserDocument' },
        codes: ['INVALID_RESOURCE_DATA', 'RESOURCE_NOT_FOUND'],
      }),
      delete: adminOperation({
        operationId: 'adminDeleteUser',
        summary: 'Delete a user and their keys',
        description:
          'The user, their sessions and every API key they hold are removed; the keys stop working on their next request.',
        parameters: [userId()],
        success: { status: 204, description: 'Deleted.' },
        codes: ['RESOURCE_NOT_FOUND'],
      }),
    },
    '/admin/keys': {
      get: adminOperation({
        operationId: 'adminListApiKeys',
        summary: 'List API keys',
        description: 'Keys are shown by prefix and start; the secret is never shown.',
        parameters: [
          queryParameter('userId', "Only this user's keys."),
          queryParameter('includeConsole', "`true`: list the console's own keys too (hidden by default).", {
            type: 'string',
            enum: ['true', 'false'],
            default: 'false',
          }),
          ...offsetPageParameters(),
        ],
        success: { status: 200, description: 'A page of keys.', schema: 'AdminApiKeyListDocument' },
        codes: ['INVALID_QUERY_PARAMS'],
      }),
    },
    '/admin/keys/{id}': {
      get: adminOperation({
        operationId: 'adminGetApiKey',
        summary: 'One API key',
        description: "The key's settings, limits and usage; the secret is never shown.",
        parameters: [keyId()],
        success: { status: 200, description: 'The key.', schema: 'AdminApiKeyDocument' },
        codes: ['RESOURCE_NOT_FOUND'],
      }),
      patch: adminOperation({
        operationId: 'adminUpdateApiKey',
        summary: "Change an API key's settings",
        description:
          "Enable or disable the key, change its permissions, expiry, rate limit or quota; the change applies from the key's next request.",
        parameters: [keyId()],
        body: { schema: 'AdminApiKeyUpdateBody', description: 'The settings to change.' },
        success: { status: 200, description: 'The key as changed.', schema: 'AdminApiKeyDocument' },
        codes: ['INVALID_RESOURCE_DATA', 'INVALID_PERMISSIONS', 'RESOURCE_NOT_FOUND'],
      }),
      delete: adminOperation({
        operationId: 'adminDeleteApiKey',
        summary: 'Revoke an API key',
        description: 'The key is deleted and refused from its next request on.',
        parameters: [keyId()],
        success: { status: 204, description: 'Deleted.' },
        codes: ['RESOURCE_NOT_FOUND'],
      }),
    },
  };
}
