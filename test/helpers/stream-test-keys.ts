// Authorization for stream tests, in one place: a real user with a chosen id (so `$userId` filters can
// name it) and a real API key from POST /token, optionally with scoped key permissions (spec 2.2).
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../src/app-context.ts';
import type { SvcConfig } from '../../src/config/config-types.ts';
import type { KeyPermissions } from '../../src/model/principal.ts';
import { authorizationFor, TEST_PASSWORD } from './test-auth.ts';
import { createTestUser } from './test-user.ts';

export interface TestKey {
  authorization: string;
  /** The id `$userId` resolves to for this key. */
  userId: string;
}

/** A new user `userId` of `role` and a key for it; a user id can be used once per database. */
export async function issueTestKey(
  app: FastifyInstance,
  ctx: AppContext,
  role: string,
  userId: string,
  permissions?: KeyPermissions,
): Promise<TestKey> {
  if (permissions === undefined) return { authorization: await authorizationFor(app, ctx, role, userId), userId };
  const email = `${userId.replace(/[^a-zA-Z0-9]/g, '-')}-${randomBytes(3).toString('hex')}@example.test`;
  await createTestUser(ctx, { id: userId, email, role });
  const response = await app.inject({
    method: 'POST',
    url: '/token',
    payload: { email, password: TEST_PASSWORD, permissions },
  });
  if (response.statusCode !== 201) throw new Error(`POST /token failed: ${response.statusCode} ${response.body}`);
  return { authorization: `Bearer ${(response.json() as { key: string }).key}`, userId };
}

/** The admin token's Authorization header (the test config sets `adminToken`). */
export function adminAuthorization(config: SvcConfig): string {
  if (!config.adminToken) throw new Error('the test config must set adminToken');
  return `Bearer ${config.adminToken}`;
}
