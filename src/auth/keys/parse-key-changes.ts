// The body of PATCH /admin/keys/:id (docs/admin-api.md). The administrator may loosen limits as well as
// tighten them; `null` clears a per-key setting (back to the global default, or no quota).
import type { ResourceRegistry } from '../../resources/resource-registry.ts';
import { BodyReader } from '../validation/body-reader.ts';
import type { ApiKeyChanges } from './api-key-repository.ts';
import { validateKeyPermissions } from './validate-key-permissions.ts';

const FIELDS = [
  'name',
  'enabled',
  'permissions',
  'metadata',
  'expiresAt',
  'rateLimitEnabled',
  'rateLimitMax',
  'rateLimitTimeWindow',
  'refillInterval',
  'refillAmount',
  'remaining',
] as const;

export const MAX_INTERVAL_MS = 365 * 24 * 3600 * 1000;
export const MAX_COUNT = 1_000_000_000;

export function parseKeyChanges(body: unknown, registry: Pick<ResourceRegistry, 'find'>): ApiKeyChanges {
  const reader = BodyReader.of(body);
  reader.rejectUnknown(FIELDS);
  const changes: ApiKeyChanges = {
    name: reader.string('name', { nullable: true, minLength: 1, maxLength: 255 }),
    enabled: reader.boolean('enabled') ?? undefined,
    metadata: reader.object('metadata', { nullable: true, maxBytes: 8192 }),
    expiresAt: reader.datetime('expiresAt', { nullable: true }),
    rateLimitEnabled: reader.boolean('rateLimitEnabled') ?? undefined,
    rateLimitMax: reader.integer('rateLimitMax', { nullable: true, minimum: 1, maximum: MAX_COUNT }),
    rateLimitTimeWindow: reader.integer('rateLimitTimeWindow', {
      nullable: true,
      minimum: 1,
      maximum: MAX_INTERVAL_MS,
    }),
    refillInterval: reader.integer('refillInterval', { nullable: true, minimum: 1, maximum: MAX_INTERVAL_MS }),
    refillAmount: reader.integer('refillAmount', { nullable: true, minimum: 1, maximum: MAX_COUNT }),
    remaining: reader.integer('remaining', { nullable: true, minimum: 0, maximum: MAX_COUNT }),
  };
  reader.throwIfInvalid();
  if (reader.has('permissions')) {
    const value = reader.raw('permissions');
    changes.permissions = value === null ? null : validateKeyPermissions(value, registry);
  }
  // Drop members that were not sent, so the repository only touches what the caller named.
  for (const field of Object.keys(changes) as (keyof ApiKeyChanges)[]) {
    if (changes[field] === undefined) delete changes[field];
  }
  return changes;
}
