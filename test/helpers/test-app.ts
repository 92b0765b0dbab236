// One app per suite on a fresh database, with helpers to call it as a given role.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/server.ts';
import type { AppContext } from '../../src/app-context.ts';
import { createTestDatabase, type TestDatabase, type TestDialect } from './test-databases.ts';
import { testConfig, TEST_ADMIN_TOKEN, type ConfigOverrides } from './test-config.ts';
import { authorizationFor } from './test-auth.ts';

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  database: TestDatabase;
  /** Authorization header value for a user of `role` (created on first use). */
  as(role: string, userId?: string): Promise<string>;
  admin: string;
  request(
    options: InjectOptions & { auth?: string },
  ): Promise<LightMyRequestResponse & { body: string; json<T = any>(): T }>;
  close(): Promise<void>;
}

export async function startTestApp(dialect: TestDialect, overrides: ConfigOverrides = {}): Promise<TestApp> {
  const database = await createTestDatabase(dialect);
  const config = testConfig(database.url, overrides);
  const { app, ctx } = await buildApp({ config });
  await app.ready();
  const headers = new Map<string, string>();
  return {
    app,
    ctx,
    database,
    admin: `Bearer ${config.adminToken ?? TEST_ADMIN_TOKEN}`,
    async as(role, userId = `${role}-user`) {
      const cacheKey = `${role}:${userId}`;
      let header = headers.get(cacheKey);
      if (!header) {
        header = await authorizationFor(app, ctx, role, userId);
        headers.set(cacheKey, header);
      }
      return header;
    },
    async request(options) {
      const { auth, ...rest } = options;
      const response = await app.inject({
        ...rest,
        headers: { ...(auth ? { authorization: auth } : {}), ...(rest.headers ?? {}) },
      });
      return response as Awaited<ReturnType<TestApp['request']>>;
    },
    async close() {
      await app.close();
      await ctx.store.close().catch(() => {});
      await database.drop();
    },
  };
}
