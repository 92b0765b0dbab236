// How tests obtain an Authorization header for a user with a given role: a real user (with the id the
// test names, so `$userId` filters can refer to it) and a real API key from POST /token.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../src/app-context.ts';
import { createTestUser, TEST_PASSWORD } from './test-user.ts';

export { TEST_PASSWORD } from './test-user.ts';

export async function authorizationFor(
  app: FastifyInstance,
  ctx: AppContext,
  role: string,
  userId: string,
): Promise<string> {
  const email = `${userId.replace(/[^a-zA-Z0-9]/g, '-')}-${randomBytes(3).toString('hex')}@example.test`;
  await createTestUser(ctx, { id: userId, email, role });
  const response = await app.inject({ method: 'POST', url: '/token', payload: { email, password: TEST_PASSWORD } });
  if (response.statusCode !== 201) throw new Error(`POST /token failed: ${response.statusCode} ${response.body}`);
  return `Bearer ${(response.json() as { key: string }).key}`;
}
