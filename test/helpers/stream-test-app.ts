// A listening app for stream tests: a `posts` resource with a row-filtered `user` role, on a fresh
// database of the requested dialect (or a given one, to run two apps on one database).
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type BuildAppOptions } from '../../src/server.ts';
import type { AppContext } from '../../src/app-context.ts';
import type { SvcConfig } from '../../src/config/config-types.ts';
import type { KeyPermissions } from '../../src/auth/principal.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { testConfig } from './test-config.ts';
import { createTestDatabase, type TestDatabase, type TestDialect } from './test-databases.ts';
import { adminAuthorization, issueTestKey, type TestKey } from './stream-test-keys.ts';
import { writeConfigFile } from './svc-process.ts';

export const POSTS_RESOURCE: ResourceDefinition = {
  enableSoftDelete: false,
  fields: {
    title: { type: 'string', required: true },
    body: { type: 'text' },
    status: { type: 'enum', values: ['draft', 'published'], default: 'draft' },
    author_id: { type: 'string' },
    secret: { type: 'string' },
  },
  permissions: {
    editor: { read: true, create: true, update: true, delete: true },
    user: {
      read: { fields: ['title', 'body', 'status', 'author_id'], filter: { author_id: { eq: '$userId' } } },
    },
    writer: { create: true },
  },
};

export interface StreamTestApp {
  app: FastifyInstance;
  ctx: AppContext;
  config: SvcConfig;
  baseUrl: string;
  database: TestDatabase;
  editor: TestKey;
  /** A key for a user of `role` with id `userId` (one role per user id). */
  key(role: string, userId: string, permissions?: KeyPermissions): Promise<TestKey>;
  /** A `posts` record created as the editor; returns its id. */
  createPost(values: Record<string, unknown>): Promise<string>;
  patchPost(id: string, values: Record<string, unknown>): Promise<void>;
  deletePost(id: string): Promise<void>;
  /**
   * Writes `resources` into the app's config file and reloads it with POST /admin/reload (apps started
   * with `configFile: true` only); throws unless the reload answers 200.
   */
  reload(resources: Record<string, ResourceDefinition>): Promise<void>;
  close(): Promise<void>;
}

export interface StreamTestAppOptions {
  dialect?: TestDialect;
  /** Share this database (it is not dropped on close). */
  database?: TestDatabase;
  stream?: Partial<SvcConfig['stream']>;
  redisUrl?: string;
  logger?: BuildAppOptions['logger'];
  resources?: Record<string, ResourceDefinition>;
  /** Start from a config file, so that the app can reload it (see StreamTestApp.reload). */
  configFile?: boolean;
}

export async function startStreamTestApp(options: StreamTestAppOptions = {}): Promise<StreamTestApp> {
  const ownsDatabase = options.database === undefined;
  const database = options.database ?? (await createTestDatabase(options.dialect ?? 'sqlite'));
  const config = testConfig(database.url, {
    stream: { heartbeatMs: 30000, retryMs: 3000, allowQueryToken: true, replayWindow: 100, ...options.stream },
    ...(options.redisUrl ? { redis: { url: options.redisUrl } } : {}),
    resources: options.resources ?? { posts: POSTS_RESOURCE },
  });
  const { resources: _started, ...settings } = config;
  const file = options.configFile ? writeConfigFile({ ...settings, resources: config.resources }) : undefined;
  const { app, ctx } = await buildApp({ config, ...(file !== undefined ? { configFile: file } : {}), ...(options.logger ? { logger: options.logger } : {}) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the app is not listening on a TCP port');
  // A user id per app: two apps may share a database, and a user id is created once.
  const editor = await issueTestKey(app, ctx, 'editor', `stream-editor-${randomBytes(4).toString('hex')}`);
  const inject = async (request: InjectOptions, expected: number): Promise<LightMyRequestResponse> => {
    const response = await app.inject({ ...request, headers: { authorization: editor.authorization, ...request.headers } });
    if (response.statusCode !== expected) throw new Error(`${request.method} ${request.url}: ${response.statusCode} ${response.body}`);
    return response;
  };
  return {
    app,
    ctx,
    config,
    baseUrl: `http://127.0.0.1:${address.port}`,
    database,
    editor,
    key: (role, userId, permissions) => issueTestKey(app, ctx, role, userId, permissions),
    async createPost(values) {
      const response = await inject({ method: 'POST', url: '/v1/posts', payload: values }, 201);
      return (response.json() as { data: { id: string } }).data.id;
    },
    async patchPost(id, values) {
      await inject({ method: 'PATCH', url: `/v1/posts/${id}`, payload: values }, 200);
    },
    async deletePost(id) {
      await inject({ method: 'DELETE', url: `/v1/posts/${id}` }, 204);
    },
    async reload(resources) {
      if (file === undefined) throw new Error('this app was not started from a config file');
      writeFileSync(file, stringify({ ...settings, resources }));
      const response = await app.inject({ method: 'POST', url: '/admin/reload', headers: { authorization: adminAuthorization(config) } });
      if (response.statusCode !== 200) throw new Error(`POST /admin/reload: ${response.statusCode} ${response.body}`);
    },
    async close() {
      await app.close();
      if (ownsDatabase) await database.drop();
    },
  };
}

export { adminAuthorization };
