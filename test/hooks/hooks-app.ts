// An app started from a config file on disk that names a hooks file (as `svc start` runs it), with its
// log lines kept, and helpers to rewrite the hooks file and call the app as a role.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/server.ts';
import type { AppContext } from '../../src/app-context.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { createTestDatabase, type TestDatabase, type TestDialect } from '../helpers/test-databases.ts';
import { testConfig, TEST_ADMIN_TOKEN } from '../helpers/test-config.ts';
import { authorizationFor } from '../helpers/test-auth.ts';

/** What a hooks file imports `svc` as, in this repository (an installed package imports 'svc'). */
export const SVC_ENTRY = fileURLToPath(new URL('../../src/index.ts', import.meta.url));

export const SHOP_RESOURCES: Record<string, ResourceDefinition> = {
  articles: {
    fields: {
      title: { type: 'string', required: true, maxLength: 100 },
      slug: { type: 'string', maxLength: 120 },
    },
    permissions: { user: { read: true, create: true, update: true, delete: true } },
  },
  products: {
    fields: {
      name: { type: 'string', required: true },
      stock: { type: 'integer', minimum: 0, default: 0 },
    },
    permissions: { user: { read: true, create: true, update: true }, viewer: { read: true } },
  },
  orders: {
    fields: {
      product_id: { type: 'uuid', required: true },
      quantity: { type: 'integer', minimum: 1, required: true },
      note: { type: 'string' },
    },
    permissions: {
      user: { read: true, create: true, update: true, delete: true },
      viewer: { read: true, create: true },
    },
  },
  // Nobody may write it through the API: only a hook acting as the system.
  audit: {
    fields: { message: { type: 'string', required: true } },
    permissions: { user: { read: true } },
  },
};

export interface HooksApp {
  app: FastifyInstance;
  ctx: AppContext;
  dir: string;
  /** The hooks file's name in `dir`. */
  hooksFile: string;
  database: TestDatabase;
  logs: Record<string, unknown>[];
  admin: string;
  as(role: string, userId?: string): Promise<string>;
  request(options: InjectOptions & { auth?: string }): Promise<LightMyRequestResponse>;
  writeHooks(source: string): void;
  close(): Promise<void>;
}

export function hooksModule(body: string): string {
  return `import { defineHooks, ApiError } from ${JSON.stringify(SVC_ENTRY)};\nexport default defineHooks(${body});\n`;
}

export interface HooksAppOptions {
  hookTimeoutMs?: number;
  /** Another node on the same database and the same files. */
  sharing?: HooksApp;
  /** The resources (default SHOP_RESOURCES). */
  resources?: Record<string, ResourceDefinition>;
  /** The hooks file's name in the app's folder (default svc.hooks.mjs). */
  hooksFile?: string;
  /** Other files written in the app's folder before it starts (name → content), e.g. a package.json. */
  files?: Record<string, string>;
}

export async function startHooksApp(
  dialect: TestDialect,
  hooksSource: string,
  options: HooksAppOptions = {},
): Promise<HooksApp> {
  const shared = options.sharing;
  const database = shared?.database ?? (await createTestDatabase(dialect));
  const dir = shared?.dir ?? mkdtempSync(join(tmpdir(), 'svc-hooks-'));
  const configFile = join(dir, 'svc.config.json');
  const hooksFile = options.hooksFile ?? shared?.hooksFile ?? 'svc.hooks.mjs';
  if (!shared) {
    for (const [name, content] of Object.entries(options.files ?? {})) writeFileSync(join(dir, name), content);
    writeFileSync(join(dir, hooksFile), hooksSource);
    const config = testConfig(database.url, {
      resources: options.resources ?? SHOP_RESOURCES,
      hooks: `./${hooksFile}`,
      ...(options.hookTimeoutMs !== undefined
        ? { server: { ...testConfig(database.url).server, hookTimeoutMs: options.hookTimeoutMs } }
        : {}),
    });
    writeFileSync(configFile, JSON.stringify(config));
  }
  const { loadConfig } = await import('../../src/resources/config-loader.ts');
  const config = await loadConfig({ file: configFile, env: {} });
  const logs: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim() !== '') logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const built = await buildApp({ config, configFile, logger: { level: 'info', stream } }).catch(
    async (error: unknown) => {
      if (!shared) {
        await database.drop();
        rmSync(dir, { recursive: true, force: true });
      }
      throw error;
    },
  );
  const { app, ctx } = built;
  await app.ready();
  const headers = new Map<string, string>();
  return {
    app,
    ctx,
    dir,
    hooksFile,
    database,
    logs,
    admin: `Bearer ${TEST_ADMIN_TOKEN}`,
    async as(role, userId = `${role}-user`) {
      let header = headers.get(`${role}:${userId}`);
      if (!header) {
        header = await authorizationFor(app, ctx, role, userId);
        headers.set(`${role}:${userId}`, header);
      }
      return header;
    },
    request(options) {
      const { auth, ...rest } = options;
      return app.inject({ ...rest, headers: { ...(auth ? { authorization: auth } : {}), ...(rest.headers ?? {}) } });
    },
    writeHooks(source) {
      writeFileSync(join(dir, hooksFile), source);
    },
    async close() {
      await app.close();
      if (!shared) {
        await database.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
