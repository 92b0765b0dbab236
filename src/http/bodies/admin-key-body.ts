// The body of `PATCH /admin/keys/{id}` (docs/admin-api.md): checked here, shown as the OpenAPI
// document's `AdminApiKeyUpdateBody`.
import { MAX_COUNT, MAX_INTERVAL_MS, type KeyChangesBody } from '../../auth/keys/parse-key-changes.ts';
import { ACTIONS } from '../../config/config-types.ts';
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { RequestBody } from './request-body.ts';

/** Per resource, per action, the fields the key may use (`["*"]`: all). */
export function adminKeyPermissionsSchema(): JsonSchema {
  return {
    type: 'object',
    additionalProperties: {
      type: 'object',
      properties: Object.fromEntries(ACTIONS.map((action) => [action, { type: 'array', items: { type: 'string' } }])),
      additionalProperties: false,
    },
    examples: [{ posts: { read: ['*'], create: ['title', 'body'] } }],
  };
}

export function adminKeyUpdateSchema(): JsonSchema {
  const bounded = (minimum: number, maximum: number, description?: string): JsonSchema => ({
    type: ['integer', 'null'],
    minimum,
    maximum,
    ...(description ? { description } : {}),
  });
  return {
    type: 'object',
    description:
      'The key settings to change; `null` clears a per-key setting (back to the global default, or no quota).',
    properties: {
      name: { type: ['string', 'null'], minLength: 1, maxLength: 255 },
      enabled: { type: 'boolean' },
      permissions: {
        ...adminKeyPermissionsSchema(),
        type: ['object', 'null'],
        description: 'Resources and fields must exist; null: the role’s permissions',
      },
      metadata: { type: ['object', 'null'], description: 'At most 8 KiB as JSON' },
      expiresAt: { type: ['string', 'null'], format: 'date-time' },
      rateLimitEnabled: { type: 'boolean' },
      rateLimitMax: bounded(1, MAX_COUNT),
      rateLimitTimeWindow: bounded(1, MAX_INTERVAL_MS, 'Milliseconds'),
      refillInterval: bounded(1, MAX_INTERVAL_MS, 'Milliseconds'),
      refillAmount: bounded(1, MAX_COUNT),
      remaining: bounded(0, MAX_COUNT),
    },
    additionalProperties: false,
  };
}

/** An empty body changes nothing. */
export function adminKeyUpdateBody(): RequestBody<KeyChangesBody> {
  return new RequestBody<KeyChangesBody>({
    name: 'AdminApiKeyUpdateBody',
    schema: adminKeyUpdateSchema(),
    absentIsEmpty: true,
    memberCodes: new Map([['permissions', 'INVALID_PERMISSIONS']]),
  });
}
