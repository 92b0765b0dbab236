// Shared steps of the auth suites: apps with a captured log, sign-up, /token, direct table reads.
import { Writable } from 'node:stream';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type InjectOptions,
  type LightMyRequestResponse,
} from 'fastify';
import { buildApp } from '../../src/server.ts';
import type { AppContext } from '../../src/app-context.ts';
import type { SvcConfig } from '../../src/config/config-types.ts';
import type { Store } from '../../src/store/create-store.ts';
import { createTestDatabase, type TestDatabase, type TestDialect } from '../helpers/test-databases.ts';
import { testConfig, type ConfigOverrides } from '../helpers/test-config.ts';

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export interface AuthTestApp {
  app: FastifyInstance;
  ctx: AppContext;
  config: SvcConfig;
  logs: LogLine[];
  /** Admin tokens the app generated and showed (on standard error, outside tests). */
  announced: string[];
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** Collects pino's JSON lines so tests can assert what was (and was not) logged. */
export function captureLogs(): { stream: Writable; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) if (text.trim()) lines.push(JSON.parse(text) as LogLine);
      done();
    },
  });
  return { stream, lines };
}

/** A logger for components tested on their own: silent, or writing JSON lines to `stream`. */
export function testLogger(stream?: Writable, level = 'warn'): FastifyBaseLogger {
  return Fastify({ logger: stream ? { level, stream } : false }).log;
}

export async function startApp(config: SvcConfig, store?: Store): Promise<AuthTestApp> {
  const { stream, lines } = captureLogs();
  const announced: string[] = [];
  const { app, ctx } = await buildApp({
    config,
    ...(store ? { store } : {}),
    logger: { level: 'info', stream },
    startWorkers: false,
    announceAdminToken: (token) => announced.push(token),
  });
  await app.ready();
  return {
    app,
    ctx,
    config,
    logs: lines,
    announced,
    inject: (options) => app.inject(options),
    close: () => app.close(),
  };
}

export interface AuthSuite {
  database: TestDatabase;
  config: SvcConfig;
  t: AuthTestApp;
  close(): Promise<void>;
}

/** A fresh database and an app on it. */
export async function startAuthSuite(dialect: TestDialect, overrides: ConfigOverrides = {}): Promise<AuthSuite> {
  const database = await createTestDatabase(dialect);
  const config = testConfig(database.url, overrides);
  const t = await startApp(config);
  return {
    database,
    config,
    t,
    async close() {
      await t.close();
      await database.drop();
    },
  };
}

let counter = 0;
export function uniqueEmail(label = 'user'): string {
  counter++;
  return `${label}-${process.pid}-${Date.now().toString(36)}-${counter}@example.test`;
}

export const PASSWORD = 'correct horse battery';

export async function signUp(
  t: AuthTestApp,
  email: string,
  password = PASSWORD,
  extra: Record<string, unknown> = {},
): Promise<{ id: string }> {
  const response = await t.inject({
    method: 'POST',
    url: '/auth/sign-up/email',
    payload: { name: 'Test User', email, password, ...extra },
  });
  if (response.statusCode !== 200) throw new Error(`sign-up failed: ${response.statusCode} ${response.body}`);
  return (response.json() as { user: { id: string } }).user;
}

export interface IssuedKey {
  key: string;
  id: string;
  name: string | null;
  start: string;
  prefix: string;
  expiresAt: string | null;
  permissions: unknown;
}

export async function issueKey(t: AuthTestApp, body: Record<string, unknown>): Promise<IssuedKey> {
  const response = await t.inject({ method: 'POST', url: '/token', payload: body });
  if (response.statusCode !== 201) throw new Error(`/token failed: ${response.statusCode} ${response.body}`);
  return response.json() as IssuedKey;
}

/** A signed-up user and a key for it, in one step. */
export async function userWithKey(
  t: AuthTestApp,
  tokenFields: Record<string, unknown> = {},
): Promise<{ userId: string; email: string; key: string; keyId: string }> {
  const email = uniqueEmail();
  const user = await signUp(t, email);
  const issued = await issueKey(t, { email, password: PASSWORD, ...tokenFields });
  return { userId: user.id, email, key: issued.key, keyId: issued.id };
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

export function errorCodes(response: LightMyRequestResponse): string[] {
  return (response.json() as { errors: { code: string }[] }).errors.map((e) => e.code);
}

export function errorPointers(response: LightMyRequestResponse): string[] {
  return (response.json() as { errors: { source?: { pointer?: string } }[] }).errors.map(
    (e) => e.source?.pointer ?? '',
  );
}

export async function keyRow(ctx: AppContext, keyId: string): Promise<Record<string, unknown> | undefined> {
  return ctx.store.db.selectFrom('svc_api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
}
