// Random request bodies (broken JSON, wrong types, extreme numbers, prototype keys, deep nesting, odd
// content types) against POST, PUT and PATCH: a write that stores exactly what was sent, or a 4xx
// JSON:API error; never a 500, a hang, or a polluted Object.prototype.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { testDialects } from '../helpers/test-databases.ts';
import type { ErrorCode } from '../../src/errors/error-catalogue.ts';
import { ERROR_CATALOGUE } from '../../src/errors/error-catalogue.ts';
import { findUnstorableText } from '../../src/http/server/unstorable-text.ts';
import {
  adminBodyText,
  contentType,
  hostileBodyText,
  POST_FIELDS,
  SPECIAL_STRINGS,
  SQL_INJECTIONS,
  UNSTORABLE_CHARACTERS,
} from './hostile-arbitraries.ts';
import {
  assertNothingUnstorable,
  checkAnswer,
  fuzz,
  Prober,
  report,
  send,
  snapshotDatabase,
  startFuzzApp,
  type Answer,
  type DatabaseSnapshot,
  type FuzzApp,
} from './fuzz-harness.ts';

const RUNS = { create: 400, update: 400, other: 500 };

const ALL_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** Whether a body, as the server parses it, holds text no database stores (then it must be refused). */
function holdsUnstorable(text: string): boolean {
  try {
    return findUnstorableText(asParsed(text), '').length > 0;
  } catch {
    return false;
  }
}

const WRITE_ERRORS: readonly ErrorCode[] = [
  'INVALID_JSON',
  'INVALID_RESOURCE_DATA',
  'INVALID_FIELDS',
  'RELATION_REFERENCE_ERROR',
  'UNSUPPORTED_MEDIA_TYPE',
  'CONFLICT',
];

/** A JSON text sent as multipart/form-data (file uploads, docs/files.md) does not parse as a form. */
function formErrors(type: string | undefined): ErrorCode[] {
  return type?.toLowerCase().startsWith('multipart/form-data') ? ['BAD_REQUEST'] : [];
}

/** Fields whose value must come back exactly as sent (no type conversion applies to them). */
const VERBATIM_FIELDS = new Set(['title', 'body', 'author_id', 'name', 'description', 'tags']);

/** What the server sees of a body: JSON without `__proto__` members (the body parser drops them). */
function asParsed(text: string): unknown {
  return JSON.parse(text, (key, value: unknown) => (key === '__proto__' ? undefined : value));
}

/** After a 2xx write, every verbatim field sent is stored and shown as sent. */
function assertStoredAsSent(text: string, response: Answer): void {
  const sent = asParsed(text) as Record<string, unknown>;
  const { attributes } = (response.json() as { data: { attributes: Record<string, unknown> } }).data;
  for (const [name, value] of Object.entries(sent)) {
    if (!VERBATIM_FIELDS.has(name) || !Object.hasOwn(attributes, name)) continue;
    assert.deepEqual(
      attributes[name],
      value,
      `${name} not stored as sent: ${text.slice(0, 300)} → ${response.body.slice(0, 300)}`,
    );
  }
}

const PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();

function assertPrototypeIntact(): void {
  assert.deepEqual(
    Object.getOwnPropertyNames(Object.prototype).sort(),
    PROTOTYPE_KEYS,
    'Object.prototype gained a property',
  );
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype polluted');
}

for (const dialect of testDialects()) {
  describe(`hostile request bodies on ${dialect}`, () => {
    let app: FuzzApp;
    let probe: Prober;
    let snapshot: DatabaseSnapshot;
    let editorPost: string;
    const created: Record<string, number> = { posts: 0, categories: 0, comments: 0 };
    before(async () => {
      app = await startFuzzApp(dialect);
      probe = new Prober(app);
      const target = await app.t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: app.editor,
        payload: { title: 'Target' },
      });
      editorPost = (target.json() as { data: { id: string } }).data.id;
      snapshot = await snapshotDatabase(app);
    });
    after(() => app.t.close());

    it('creates exactly what was sent or answers 4xx, for any body and content type', async (t) => {
      // Mostly pairs where the role may create; `user` on categories or comments is FORBIDDEN.
      const aim = fc.constantFrom(
        ['editor', 'posts'],
        ['editor', 'categories'],
        ['editor', 'comments'],
        ['user', 'posts'],
        ['user', 'posts'],
        ['user', 'categories'],
      ) as fc.Arbitrary<['editor' | 'user', string]>;
      const request = aim.chain(([who, resource]) =>
        fc.tuple(fc.constant(who), fc.constant(resource), hostileBodyText(resource)),
      );
      const cases = await fuzz(RUNS.create, [request, contentType], async ([who, target, text], type) => {
        // The `user` role may create posts only; the others are FORBIDDEN once the body parses.
        const { response } = await probe.expect(
          {
            method: 'POST',
            url: `/v1/${target}`,
            auth: app[who],
            payload: text,
            headers: type === undefined ? {} : { 'content-type': type },
          },
          {
            ok: [201],
            errors: [...WRITE_ERRORS, ...formErrors(type), 'FORBIDDEN', 'PAYLOAD_TOO_LARGE'],
            hidden: app.hiddenFrom[who],
          },
        );
        assertPrototypeIntact();
        if (holdsUnstorable(text))
          assert.ok(response.statusCode >= 400, `stored text no database stores: ${text.slice(0, 300)}`);
        if (response.statusCode !== 201) return;
        created[target] = (created[target] ?? 0) + 1;
        assertStoredAsSent(text, response);
      });
      report(t, `create bodies on ${dialect}`, cases, probe);
    });

    it('replaces and patches exactly what was sent or answers 4xx, on rows inside and outside the grant', async (t) => {
      // editor: its own row; user: its own row, a readable row it may not update, an invisible one.
      const aim = fc.constantFrom(
        { who: 'editor', id: () => editorPost, errors: [] as ErrorCode[] },
        { who: 'user', id: () => app.ids.userPost, errors: [] as ErrorCode[] },
        { who: 'user', id: () => app.ids.publishedPost, errors: ['FORBIDDEN'] as ErrorCode[] },
        { who: 'user', id: () => app.ids.draftPost, errors: ['RESOURCE_NOT_FOUND'] as ErrorCode[] },
      );
      const cases = await fuzz(
        RUNS.update,
        [aim, fc.constantFrom('PUT', 'PATCH') as fc.Arbitrary<'PUT' | 'PATCH'>, hostileBodyText('posts'), contentType],
        async (target, method, text, type) => {
          const who = target.who as 'editor' | 'user';
          const { response } = await probe.expect(
            {
              method,
              url: `/v1/posts/${target.id()}`,
              auth: app[who],
              payload: text,
              headers: type === undefined ? {} : { 'content-type': type },
            },
            {
              ok: target.errors.length === 0 ? [200] : [],
              errors: [...WRITE_ERRORS, ...formErrors(type), ...target.errors, 'PAYLOAD_TOO_LARGE'],
              hidden: app.hiddenFrom[who],
            },
          );
          assertPrototypeIntact();
          if (holdsUnstorable(text))
            assert.ok(response.statusCode >= 400, `stored text no database stores: ${text.slice(0, 300)}`);
          if (response.statusCode === 200) assertStoredAsSent(text, response);
        },
      );
      report(t, `update bodies on ${dialect}`, cases, probe);
    });

    it('stores or refuses every known-nasty value in every field (exhaustive table)', async (t) => {
      const values: unknown[] = [
        ...SPECIAL_STRINGS,
        ...SQL_INJECTIONS,
        ...UNSTORABLE_CHARACTERS,
        ['ok', 'a\u0000'],
        { k: '\udc00' },
        { 'k\u0000': 1 },
        'x'.repeat(201),
        'x'.repeat(100_000),
        0,
        -0,
        -1,
        1.5,
        2 ** 53,
        2 ** 63,
        -(2 ** 63),
        1e308,
        5e-324,
        true,
        false,
        null,
        [],
        {},
        [null],
        { a: { b: [1, 'two'] } },
      ];
      let cases = 0;
      for (const field of POST_FIELDS) {
        for (const value of values) {
          cases++;
          const text = JSON.stringify({ [field]: value });
          const { response } = await probe.expect(
            {
              method: 'PATCH',
              url: `/v1/posts/${editorPost}`,
              auth: app.editor,
              payload: text,
              headers: { 'content-type': 'application/json' },
            },
            { ok: [200], errors: WRITE_ERRORS, hidden: app.hiddenFrom.editor, label: `PATCH ${text.slice(0, 120)}` },
          );
          if (holdsUnstorable(text))
            assert.equal(response.statusCode, 400, `stored text no database stores: ${text.slice(0, 120)}`);
          if (response.statusCode === 200) assertStoredAsSent(text, response);
        }
      }
      report(t, `field values on ${dialect}`, cases, probe);
    });

    it('refuses unstorable text in admin, /token and /auth bodies with 400 and its pointer, and answers every body below 500', async (t) => {
      const { admin } = app.t;
      const email = `fuzz-${dialect}@example.com`;
      const password = 'correct horse battery';
      const signedUp = await send(app.t, {
        method: 'POST',
        url: '/auth/sign-up/email',
        payload: { name: 'Fuzz', email, password },
      });
      assert.equal(signedUp.statusCode, 200, signedUp.body);
      const userId = (signedUp.json() as { user: { id: string } }).user.id;
      const hook = await send(app.t, {
        method: 'POST',
        url: '/admin/webhooks',
        auth: admin,
        payload: { name: 'h', url: 'https://hooks.example.com/in', eventPattern: 'posts.*' },
      });
      const hookId = (hook.json() as { data: { id: string } }).data.id;
      const keys = await send(app.t, { method: 'GET', url: '/admin/keys?_limit=1', auth: admin });
      const keyId = (keys.json() as { data: { id: string }[] }).data[0]!.id;
      const endpoint = fc.constantFrom(
        {
          method: 'POST',
          url: '/admin/webhooks',
          auth: admin,
          body: adminBodyText('webhooks', { name: 'h', url: 'https://hooks.example.com/in', eventPattern: 'posts.*' }),
        },
        { method: 'PATCH', url: `/admin/webhooks/${hookId}`, auth: admin, body: adminBodyText('webhooks', {}) },
        { method: 'PATCH', url: `/admin/users/${userId}`, auth: admin, body: adminBodyText('users', {}) },
        { method: 'PATCH', url: `/admin/keys/${keyId}`, auth: admin, body: adminBodyText('keys', {}) },
        { method: 'POST', url: '/token', auth: undefined, body: adminBodyText('token', { email, password }) },
        {
          method: 'POST',
          url: '/auth/sign-in/email',
          auth: undefined,
          body: adminBodyText('auth', { email, password }),
        },
        {
          method: 'POST',
          url: '/auth/sign-up/email',
          auth: undefined,
          body: adminBodyText('auth', { name: 'n', email: 'x@example.com', password }),
        },
      ) as fc.Arbitrary<{
        method: 'POST' | 'PATCH';
        url: string;
        auth: string | undefined;
        body: fc.Arbitrary<string>;
      }>;
      const request = endpoint.chain((target) => fc.tuple(fc.constant(target), target.body));
      const cases = await fuzz(RUNS.other, [request], async ([target, text]) => {
        const label = `${target.method} ${target.url} ${text.slice(0, 300)}`;
        const response = await send(app.t, {
          method: target.method,
          url: target.url,
          ...(target.auth ? { auth: target.auth } : {}),
          payload: text,
          headers: { 'content-type': 'application/json' },
        });
        assert.ok(
          response.statusCode < 500,
          `server error: ${label} → ${response.statusCode} ${response.body.slice(0, 300)}`,
        );
        assertPrototypeIntact();
        const type = String(response.headers['content-type'] ?? '');
        if (type === 'application/vnd.api+json' || (response.statusCode >= 400 && !target.url.startsWith('/auth'))) {
          checkAnswer(response, { ok: [200, 201], errors: ALL_CODES, hidden: app.hiddenFrom.editor, label });
        } else if (response.body !== '') {
          assertNothingUnstorable(JSON.parse(response.body), label);
        }
        if (holdsUnstorable(text)) {
          assert.equal(
            response.statusCode,
            400,
            `accepted text no database stores: ${label} → ${response.body.slice(0, 300)}`,
          );
          const errors = (response.json() as { errors: { code: string; source?: { pointer?: string } }[] }).errors;
          for (const error of errors) {
            assert.equal(error.code, 'INVALID_RESOURCE_DATA', label);
            assert.match(error.source?.pointer ?? '', /^\/data(\/|$)/, label);
          }
        }
      });
      report(t, `admin, /token and /auth bodies on ${dialect}`, cases);
    });

    it('leaves the planted rows and tables as they were; row counts grew only by the 201s', async () => {
      const after = await snapshotDatabase(app);
      assert.deepEqual(after.tables, snapshot.tables);
      assert.deepEqual(after.planted, snapshot.planted);
      assert.deepEqual(after.counts, {
        ...snapshot.counts,
        posts: snapshot.counts.posts! + created.posts!,
        categories: snapshot.counts.categories! + created.categories!,
        comments: snapshot.counts.comments! + created.comments!,
      });
    });
  });
}
