// `POST /token` (docs/authentication.md): a user's email and password exchanged for an API key, with the
// body's schema the one the route checks it with (http/bodies/token-body.ts).
import { LOGIN_THROTTLE_DEFAULTS } from '../../config/config-schema.ts';
import type { SvcConfig } from '../../config/config-types.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { tokenRequestSchema } from '../bodies/token-body.ts';
import { BODY_CODES, errorResponses } from './error-responses.ts';
import { headerRef, JSON_MEDIA_TYPE, jsonRequestBody, schemaRef, type OpenApiObject } from './openapi-refs.ts';
import { AUTH_TAG } from './service-paths.ts';
import { SESSION_COOKIE_SCHEME, SESSION_TOKEN_SCHEME } from './identity-paths.ts';
import { IDEMPOTENCY_CODES, idempotencyKeyParameter, withReplayedHeader } from './idempotency-openapi.ts';
import { IDEMPOTENCY_DEFAULTS } from '../../config/idempotency-settings.ts';

export const TOKEN_SCHEMAS = ['TokenRequest', 'TokenResponse'] as const;
export const TOKEN_OPERATIONS = ['createToken'] as const;

const nullableString = (): JsonSchema => ({ type: ['string', 'null'] });

export function tokenSchemas(config: SvcConfig): Record<'TokenRequest' | 'TokenResponse', JsonSchema> {
  return {
    TokenRequest: tokenRequestSchema(config),
    TokenResponse: {
      type: 'object',
      description: 'The new API key. `key` is shown only in this response; only a hash is stored.',
      required: ['key', 'id', 'name', 'start', 'prefix', 'expiresAt', 'permissions'],
      properties: {
        key: { type: 'string', pattern: '^svc_', description: 'The full key, for `Authorization: Bearer`' },
        id: { type: 'string' },
        name: nullableString(),
        start: { type: 'string', description: 'First characters of the key, to recognise it' },
        prefix: { type: 'string', examples: ['svc_'] },
        expiresAt: { type: ['string', 'null'], format: 'date-time' },
        permissions: { anyOf: [schemaRef('KeyPermissions'), { type: 'null' }] },
      },
      additionalProperties: false,
    },
  };
}

export function tokenPath(config: SvcConfig): Record<string, OpenApiObject> {
  const base = config.auth.basePath.replace(/\/+$/, '');
  const throttled = (config.auth.loginThrottle ?? LOGIN_THROTTLE_DEFAULTS).enabled;
  const tokenErrors: ErrorCode[] = [
    ...BODY_CODES,
    'INVALID_RESOURCE_DATA',
    'INVALID_PERMISSIONS',
    'INVALID_CREDENTIALS',
    'UNAUTHORIZED',
    'FORBIDDEN',
    'INTERNAL_ERROR',
    ...IDEMPOTENCY_CODES,
  ];
  if (config.auth.emailAndPassword?.enabled === false) tokenErrors.push('EMAIL_PASSWORD_DISABLED');
  if (config.auth.requireEmailVerification) tokenErrors.push('EMAIL_NOT_VERIFIED');
  if (config.auth.twoFactor?.enabled) tokenErrors.push('TWO_FACTOR_REQUIRED', 'INVALID_TWO_FACTOR_CODE');
  // Too many failed attempts for the email or from the caller's address.
  if (throttled) tokenErrors.push('RATE_LIMITED');
  const noStore = { description: 'The answer holds a secret.', schema: { type: 'string', const: 'no-store' } };
  return {
    '/token': {
      post: {
        tags: [AUTH_TAG],
        operationId: 'createToken',
        summary: 'Issue an API key',
        description:
          "Exchanges a user's email and password for an API key, with optional scopes, expiry and limits. An unknown email and a " +
          'wrong password get the same answer. Without email and password, the key is for the signed-in session the request ' +
          'carries instead (a user who signs in with a social or OIDC provider): `Authorization: Bearer <session token>`, or the ' +
          "session cookie from a trusted origin (`Origin` must be the service's own or in `auth.trustedOrigins`, else 403 `FORBIDDEN`); " +
          'none, or one that is signed out or expired, is 401 `UNAUTHORIZED`. Idempotency-Key is for email and password only.' +
          (config.auth.emailAndPassword?.enabled === false
            ? ' Email and password are turned off here (403 `EMAIL_PASSWORD_DISABLED`).'
            : '') +
          (throttled
            ? ' Failed attempts are throttled per email and per client address, together with `' +
              base +
              '/sign-in/email`.'
            : ''),
        security: [{}, { [SESSION_TOKEN_SCHEME]: [] }, { [SESSION_COOKIE_SCHEME]: [] }],
        parameters: [idempotencyKeyParameter((config.idempotency ?? IDEMPOTENCY_DEFAULTS).ttlMs)],
        requestBody: jsonRequestBody('TokenRequest', 'Credentials and options of the new key, as a flat JSON object.'),
        responses: {
          '201': withReplayedHeader({
            description: 'The key was issued.',
            headers: { 'X-Request-Id': headerRef('XRequestId'), 'Cache-Control': noStore },
            content: { [JSON_MEDIA_TYPE]: { schema: schemaRef('TokenResponse') } },
          }),
          ...errorResponses(tokenErrors),
        },
      },
    },
  };
}
