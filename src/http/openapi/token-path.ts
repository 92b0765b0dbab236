// `POST /token` (docs/authentication.md): a user's email and password exchanged for an API key, with the
// body's bounds taken from the parser (auth/keys/token-request.ts) so the two cannot drift.
import { LOGIN_THROTTLE_DEFAULTS } from '../../config/config-schema.ts';
import type { SvcConfig } from '../../config/config-types.ts';
import {
  MAX_COUNT,
  MAX_EXPIRES_IN_SECONDS,
  MAX_INTERVAL_MS,
  TOKEN_FIELD_LIMITS,
} from '../../auth/keys/token-request.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import type { JsonSchema } from '../../resources/field-types/index.ts';
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
  const { max, timeWindow } = config.apiKeys.rateLimit;
  const tighten =
    `May only tighten the global default of ${max} requests per ${timeWindow} ms: rateLimitMax at most ${max}, and ` +
    `rateLimitMax × ceil(${timeWindow} / rateLimitTimeWindow) at most ${max}.`;
  const optionalInteger = (minimum: number, maximum: number, description: string): JsonSchema => ({
    type: ['integer', 'null'],
    minimum,
    maximum,
    description,
  });
  return {
    TokenRequest: {
      type: 'object',
      description:
        'A flat JSON object; a field not listed here is refused (400 `INVALID_RESOURCE_DATA`). null is the same as leaving a field out. ' +
        'email and password go together; without both, the key is for the signed-in session the request carries.',
      properties: {
        email: {
          type: 'string',
          minLength: 1,
          maxLength: TOKEN_FIELD_LIMITS.emailMaxLength,
          description: "The user's email, in any letter case",
          examples: ['ada@example.com'],
        },
        password: { type: 'string', minLength: 1, maxLength: TOKEN_FIELD_LIMITS.passwordMaxLength, writeOnly: true },
        otp: {
          type: ['string', 'null'],
          minLength: 1,
          maxLength: TOKEN_FIELD_LIMITS.otpMaxLength,
          writeOnly: true,
          description:
            'The current code of the authenticator app, for a user with two-factor on (403 `TWO_FACTOR_REQUIRED` without it, 401 `INVALID_TWO_FACTOR_CODE` when wrong)',
          examples: ['123456'],
        },
        permissions: {
          anyOf: [schemaRef('KeyPermissions'), { type: 'null' }],
          description:
            "The key's scopes; every resource, action and field must exist (400 `INVALID_PERMISSIONS`). Omitted: everything the user's role allows.",
        },
        name: {
          type: ['string', 'null'],
          minLength: 1,
          maxLength: TOKEN_FIELD_LIMITS.nameMaxLength,
          description: 'Label of the key',
        },
        metadata: {
          type: ['object', 'null'],
          description: `Your own data, kept with the key (at most ${TOKEN_FIELD_LIMITS.metadataMaxBytes} bytes as JSON)`,
        },
        expiresIn: optionalInteger(1, MAX_EXPIRES_IN_SECONDS, 'Seconds until the key expires; omitted: never'),
        rateLimitMax: optionalInteger(1, MAX_COUNT, `Requests per window. ${tighten}`),
        rateLimitTimeWindow: optionalInteger(1, MAX_INTERVAL_MS, `Window length in milliseconds. ${tighten}`),
        refillInterval: optionalInteger(
          1,
          MAX_INTERVAL_MS,
          'Milliseconds between refills of the request quota; give it with refillAmount',
        ),
        refillAmount: optionalInteger(1, MAX_COUNT, 'Requests restored per refill; give it with refillInterval'),
        remaining: optionalInteger(
          1,
          MAX_COUNT,
          'Request quota; when used up: 429 `USAGE_EXCEEDED`. Omitted with a refill: starts at refillAmount',
        ),
      },
      additionalProperties: false,
    },
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
