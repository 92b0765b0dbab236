// The Authorization headers the webhook tests send, in one place: the admin token from the test
// config, and a user key for creating records (delegated to the shared test-auth helper).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../src/app-context.ts';
import type { SvcConfig } from '../../src/config/config-types.ts';
import { authorizationFor } from './test-auth.ts';

export function webhookAdminAuthorization(config: SvcConfig): string {
  if (!config.adminToken) throw new Error('the webhook test config must set adminToken');
  return `Bearer ${config.adminToken}`;
}

export function webhookUserAuthorization(
  app: FastifyInstance,
  ctx: AppContext,
  role: string,
  userId: string,
): Promise<string> {
  return authorizationFor(app, ctx, role, userId);
}
