// The body of `POST /token` (docs/authentication.md): one schema, checked here and shown as the
// OpenAPI document's `TokenRequest`.
import {
  MAX_COUNT,
  MAX_EXPIRES_IN_SECONDS,
  MAX_INTERVAL_MS,
  TOKEN_FIELD_LIMITS,
  type TokenRequestBody,
} from '../../auth/keys/token-request.ts';
import type { SvcConfig } from '../../config/config-types.ts';
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { keyPermissionsSchema } from './key-permissions-schema.ts';
import { RequestBody } from './request-body.ts';

const KEY_PERMISSIONS_REF = '#/components/schemas/KeyPermissions';

/** The schema of the body under `config` (its descriptions name the configured rate-limit default). */
export function tokenRequestSchema(config: SvcConfig): JsonSchema {
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
        anyOf: [{ $ref: KEY_PERMISSIONS_REF }, { type: 'null' }],
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
      console: {
        type: 'boolean',
        description:
          "The web console's own key: it ends when unused for a while and after a fixed maximum, and is left out of key lists; refused with expiresIn",
      },
    },
    dependentRequired: { email: ['password'], password: ['email'] },
    additionalProperties: false,
  };
}

/** An empty body asks for a key for the caller's signed-in session. */
export function tokenRequestBody(config: SvcConfig): RequestBody<TokenRequestBody> {
  return new RequestBody<TokenRequestBody>({
    name: 'TokenRequest',
    schema: tokenRequestSchema(config),
    components: { KeyPermissions: keyPermissionsSchema() },
    absentIsEmpty: true,
    memberCodes: new Map([['permissions', 'INVALID_PERMISSIONS']]),
  });
}
