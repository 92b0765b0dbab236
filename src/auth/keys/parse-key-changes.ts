// The body of PATCH /admin/keys/:id (docs/admin-api.md) once its shape is checked
// (http/bodies/admin-key-body.ts). The administrator may loosen limits as well as tighten them; `null`
// clears a per-key setting (back to the global default, or no quota).
import type { ErrorIssue } from '../../errors/api-error.ts';
import type { ResourceRegistry } from '../../resources/resource-registry.ts';
import type { ApiKeyChanges } from './api-key-repository.ts';
import { readKeyPermissions } from './read-key-permissions.ts';

/** The body as its schema accepts it. */
export type KeyChangesBody = Omit<ApiKeyChanges, 'permissions' | 'metadata'> & {
  permissions?: Record<string, unknown> | null;
  metadata?: Record<string, unknown> | null;
};

export const MAX_INTERVAL_MS = 365 * 24 * 3600 * 1000;
export const MAX_COUNT = 1_000_000_000;
export const METADATA_MAX_BYTES = 8192;

/** What the schema cannot say: metadata's size as JSON, and whether the scoped resources and fields exist. */
export function keyChangesProblems(
  body: Partial<KeyChangesBody>,
  registry: Pick<ResourceRegistry, 'find'>,
): ErrorIssue[] {
  const issues = body.permissions ? readKeyPermissions(body.permissions, registry).issues : [];
  if (body.metadata && Buffer.byteLength(JSON.stringify(body.metadata)) > METADATA_MAX_BYTES)
    issues.push({ detail: `'metadata' must be at most ${METADATA_MAX_BYTES} bytes of JSON`, field: 'metadata' });
  return issues;
}

/** The changes a checked body asks for, with only the members it names (keyChangesProblems found none). */
export function keyChangesOf(body: KeyChangesBody, registry: Pick<ResourceRegistry, 'find'>): ApiKeyChanges {
  const { permissions, metadata, expiresAt, ...plain } = body;
  const changes: ApiKeyChanges = { ...plain };
  if (metadata !== undefined) changes.metadata = metadata;
  // Stored as the server's own timestamps are: UTC with milliseconds.
  if (expiresAt !== undefined) changes.expiresAt = expiresAt === null ? null : new Date(expiresAt).toISOString();
  if (permissions !== undefined)
    changes.permissions = permissions === null ? null : readKeyPermissions(permissions, registry).permissions;
  return changes;
}
