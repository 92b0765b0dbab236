// The hostile-input suites' common ground: an app with secrets planted where the fuzzed callers may not
// look, requests bounded in time, the checks every answer must pass, and a database snapshot to prove
// that nothing was dropped or changed behind the API's back.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import Ajv from 'ajv';
import draft6 from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };
import { sql } from 'kysely';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/errors/error-catalogue.ts';
import { findUnstorableText } from '../../src/http/server/unstorable-text.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { BLOG_RESOURCES, type ConfigOverrides } from '../helpers/test-config.ts';
import type { TestDialect } from '../helpers/test-databases.ts';

/** Fixed, so a failure replays; FUZZ_SEED / FUZZ_SCALE explore further (e.g. FUZZ_SCALE=20 overnight). */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const FUZZ_SCALE = Math.max(1, Number(process.env.FUZZ_SCALE ?? 1));

/** Any answer slower than this is a hang. Generous: CI runs several suites on 2 cores at once. */
export const REQUEST_TIMEOUT_MS = 5_000;

/** fast-check parameters for `runs` cases at the fixed seed. */
export function fuzzParameters<Ts>(runs: number): fc.Parameters<Ts> {
  return { seed: FUZZ_SEED, numRuns: Math.round(runs * FUZZ_SCALE) };
}

/** Runs an async property at the fixed seed and returns how many cases it executed. */
export async function fuzz<Ts extends [unknown, ...unknown[]]>(
  runs: number,
  arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
  predicate: (...args: Ts) => Promise<void>,
): Promise<number> {
  let executed = 0;
  const property = fc.asyncProperty(...arbitraries, async (...args: Ts) => {
    executed++;
    await predicate(...args);
  });
  const details = await fc.check(property, fuzzParameters<Ts>(runs));
  if (details.failed) {
    // The property's own assertion says what broke; fast-check's report says with which input.
    const cause =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(`${cause}\n\n${fc.defaultReportMessage(details) ?? ''}`.slice(0, 20_000));
  }
  return executed;
}

/** A resource the fuzzed roles have no permission on at all: its row must never show up anywhere. */
export const CANARY_RESOURCE: ResourceDefinition = {
  fields: { secret: { type: 'string', required: true }, note: { type: 'text' } },
  permissions: { keeper: { read: true, create: true } },
};

export const FUZZ_RESOURCES: Record<string, ResourceDefinition> = { ...BLOG_RESOURCES, canary: CANARY_RESOURCE };

/** Rate limiting is off: thousands of requests per key per minute are the point here. */
export const FUZZ_OVERRIDES: ConfigOverrides = {
  resources: FUZZ_RESOURCES,
  apiKeys: { rateLimit: { enabled: false, max: 1000, timeWindow: 60000 } },
};

/** Values nobody outside may learn. Random per run, so no fuzzed input can contain them by chance. */
export interface Secrets {
  /** In the canary table: no fuzzed role may read it. */
  canary: string;
  /** In a draft post by someone else: outside the `user` role's read filter. */
  draft: string;
  /** In the `tags` of a published post: a field the `user` role may not read. */
  field: string;
}

export interface FuzzApp {
  t: TestApp;
  dialect: TestDialect;
  secrets: Secrets;
  editor: string;
  user: string;
  /** The `user` role's own id, as its posts carry it in `author_id`. */
  userId: string;
  /** Posts (published, readable by every role) and a category to aim ids at. */
  ids: { publishedPost: string; draftPost: string; userPost: string; category: string; canary: string };
  /** Secrets each fuzzed role must never see. */
  hiddenFrom: { editor: string[]; user: string[] };
}

export async function startFuzzApp(dialect: TestDialect): Promise<FuzzApp> {
  const t = await startTestApp(dialect, FUZZ_OVERRIDES);
  const secrets: Secrets = {
    canary: `canary-${randomBytes(12).toString('hex')}`,
    draft: `draft-${randomBytes(12).toString('hex')}`,
    field: `field-${randomBytes(12).toString('hex')}`,
  };
  const keeper = await t.as('keeper');
  const editor = await t.as('editor');
  const user = await t.as('user');
  const create = async (auth: string, resource: string, body: Record<string, unknown>): Promise<string> => {
    const response = await t.request({ method: 'POST', url: `/v1/${resource}`, auth, payload: body });
    assert.equal(response.statusCode, 201, response.body);
    return (response.json() as { data: { id: string } }).data.id;
  };
  const canary = await create(keeper, 'canary', { secret: secrets.canary, note: secrets.canary });
  const category = await create(editor, 'categories', { name: 'Seeded' });
  const draftPost = await create(editor, 'posts', {
    title: secrets.draft,
    body: secrets.draft,
    status: 'draft',
    author_id: 'someone-else',
    category_id: category,
  });
  const publishedPost = await create(editor, 'posts', {
    title: 'Public',
    body: 'Readable by all',
    status: 'published',
    author_id: 'someone-else',
    tags: { secret: secrets.field },
    category_id: category,
  });
  const userPost = await create(user, 'posts', { title: 'Mine', status: 'draft' });
  const own = await t.request({ method: 'GET', url: `/v1/posts/${userPost}`, auth: user });
  const userId = String((own.json() as { data: { attributes: { author_id: unknown } } }).data.attributes.author_id);
  return {
    t,
    dialect,
    secrets,
    editor,
    user,
    userId,
    ids: { publishedPost, draftPost, userPost, category, canary },
    hiddenFrom: { editor: [secrets.canary], user: [secrets.canary, secrets.draft, secrets.field] },
  };
}

export type Answer = Awaited<ReturnType<TestApp['request']>>;

/** One request, failed as a hang when it takes longer than REQUEST_TIMEOUT_MS. */
export async function send(
  t: TestApp,
  options: InjectOptions & { auth?: string },
  timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new Error(`no answer within ${timeoutMs} ms: ${options.method} ${String(options.url).slice(0, 300)}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([t.request(options), hang]);
  } finally {
    clearTimeout(timer);
  }
}

const require = createRequire(import.meta.url);
// The schema published by jsonapi.org (draft-06), as shipped by the jsonapi-validator package.
const jsonApiSchema = require('jsonapi-validator/lib/schema.json') as Record<string, unknown>;
const ajv = new Ajv.default({ allErrors: true, strict: false, validateFormats: false });
ajv.addMetaSchema(draft6);
const isJsonApiDocument = ajv.compile(jsonApiSchema);

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export interface Expectation {
  /** Success statuses this request may get. */
  ok?: readonly number[];
  /** Error codes this request may get (each implies its catalogue status). */
  errors?: readonly ErrorCode[];
  /** Strings that must appear nowhere in the answer. */
  hidden: readonly string[];
  /** What the request was, for failure messages. */
  label: string;
}

/**
 * The properties every answer has, whatever was sent: no 5xx; an X-Request-Id; no hidden value in the
 * headers or body; an error is a JSON:API error document whose every object has a string status equal
 * to the HTTP status, a catalogue code with its title, and a detail; a success is one of the allowed
 * statuses with a valid JSON:API document (or the bare JSON Schema, or no body for 204).
 * Returns the parsed body (undefined for 204).
 */
export function checkAnswer(response: Answer, expectation: Expectation): unknown {
  const { label } = expectation;
  const where = `${label}\n→ ${response.statusCode} ${response.body.slice(0, 600)}`;
  assert.ok(response.statusCode < 500, `server error: ${where}`);
  const requestId = response.headers['x-request-id'];
  assert.ok(
    typeof requestId === 'string' && REQUEST_ID.test(requestId),
    `X-Request-Id missing or unsafe (${String(requestId)}): ${where}`,
  );
  const rawHeaders = JSON.stringify(response.headers);
  for (const secret of expectation.hidden) {
    assert.ok(!response.body.includes(secret), `leaked a hidden value: ${where}`);
    assert.ok(!rawHeaders.includes(secret), `leaked a hidden value in a header: ${label}`);
  }
  const contentType = String(response.headers['content-type'] ?? '');

  if (response.statusCode >= 400) {
    // Exactly the type: JSON:API allows no media type parameters on it.
    assert.equal(contentType, 'application/vnd.api+json', `error without the JSON:API media type: ${where}`);
    const document = JSON.parse(response.body) as { errors?: unknown };
    assert.ok(isJsonApiDocument(document), `not a JSON:API document: ${where}`);
    assert.ok(Array.isArray(document.errors) && document.errors.length > 0, `no errors array: ${where}`);
    for (const error of document.errors as Record<string, unknown>[]) {
      assert.equal(error.status, String(response.statusCode), `error status differs from the HTTP status: ${where}`);
      const code = error.code as ErrorCode;
      assert.ok(Object.hasOwn(ERROR_CATALOGUE, code), `code outside the catalogue: ${where}`);
      assert.equal(error.title, ERROR_CATALOGUE[code].title, `title differs from the catalogue: ${where}`);
      assert.equal(typeof error.detail, 'string', `detail missing: ${where}`);
      assert.ok(
        (expectation.errors ?? []).includes(code),
        `unexpected ${response.statusCode} ${code} (expected ${[...(expectation.ok ?? []), ...(expectation.errors ?? [])].join(', ')}): ${where}`,
      );
    }
    return document;
  }

  assert.ok(
    (expectation.ok ?? []).includes(response.statusCode),
    `unexpected success ${response.statusCode}: ${where}`,
  );
  if (response.statusCode === 204) {
    assert.equal(response.body, '', `204 with a body: ${where}`);
    return undefined;
  }
  if (contentType.startsWith('application/schema+json')) return JSON.parse(response.body);
  assert.equal(contentType, 'application/vnd.api+json', `success without the JSON:API media type: ${where}`);
  const document = JSON.parse(response.body) as { data?: unknown };
  assertNothingUnstorable(document, where);
  assert.ok(isJsonApiDocument(document), `not a JSON:API document: ${where}`);
  assert.ok('data' in document, `success without data: ${where}`);
  return document;
}

/** A success never carries U+0000 or a lone surrogate: such text is refused, so nothing stored holds it. */
export function assertNothingUnstorable(document: unknown, where: string): void {
  const found = findUnstorableText(document, '');
  assert.deepEqual(found, [], `a success carries text no database stores: ${where}`);
}

/** Sends and checks in one go; counts requests and statuses for the suite's report. */
export class Prober {
  #statuses = new Map<number, number>();
  constructor(readonly app: FuzzApp) {}

  async expect(
    options: InjectOptions & { auth?: string },
    expectation: Omit<Expectation, 'label'> & { label?: string },
  ): Promise<{ response: Answer; document: unknown }> {
    const label = expectation.label ?? `${options.method} ${String(options.url).slice(0, 300)}`;
    const response = await send(this.app.t, options);
    this.#statuses.set(response.statusCode, (this.#statuses.get(response.statusCode) ?? 0) + 1);
    return { response, document: checkAnswer(response, { ...expectation, label }) };
  }

  /** `N requests (200×a, 400×b)` since the last call. */
  takeSummary(): string {
    const entries = [...this.#statuses].sort(([a], [b]) => a - b);
    const total = entries.reduce((sum, [, n]) => sum + n, 0);
    this.#statuses = new Map();
    return `${total} requests (${entries.map(([status, n]) => `${status}×${n}`).join(', ')})`;
  }
}

export interface DatabaseSnapshot {
  tables: string[];
  counts: Record<string, number>;
  /** The planted rows, as stored. */
  planted: Record<string, unknown>;
}

const COUNTED_TABLES = ['posts', 'categories', 'comments', 'canary'] as const;

export async function snapshotDatabase(app: FuzzApp): Promise<DatabaseSnapshot> {
  const { db } = app.t.ctx.store;
  const tables =
    app.dialect === 'sqlite'
      ? (
          await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by name`.execute(db)
        ).rows.map((r) => r.name)
      : (
          await sql<{
            name: string;
          }>`select table_name as name from information_schema.tables where table_schema = current_schema() order by 1`.execute(
            db,
          )
        ).rows.map((r) => r.name);
  const counts: Record<string, number> = {};
  for (const table of COUNTED_TABLES) {
    const row = await db.selectFrom(table).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  const planted: Record<string, unknown> = {};
  const { ids } = app;
  for (const [table, id] of [
    ['posts', ids.draftPost],
    ['posts', ids.publishedPost],
    ['categories', ids.category],
    ['canary', ids.canary],
  ] as const) {
    planted[`${table}/${id}`] = await db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst();
  }
  return { tables, counts, planted };
}

/** Prints a line in the test report: the fuzz suites say how much they tried and what came back. */
export function report(t: { diagnostic(message: string): void }, what: string, cases: number, probe?: Prober): void {
  t.diagnostic(`${what}: ${cases} cases${probe ? `, ${probe.takeSummary()}` : ''} (seed ${FUZZ_SEED})`);
}
