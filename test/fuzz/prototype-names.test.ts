// Names that every plain object answers to (`constructor`, `__proto__`, `toString`, ...) and random
// names, fed to every lookup keyed by a caller's input, over HTTP: resource names in paths, field names
// in filters, `fields=`, `_sort` and bodies, roles in X-Service-Role and the admin API, key permissions
// at /token, webhook headers and stream event kinds. Never a 500, never a grant.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { BLOG_RESOURCES } from '../helpers/test-config.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { createTestUser, TEST_PASSWORD } from '../helpers/test-user.ts';
import { checkAnswer, fuzz, send, type Expectation } from './fuzz-harness.ts';
import type { ErrorCode } from '../../src/errors/error-catalogue.ts';

const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'isPrototypeOf',
];

const RESOURCES: Record<string, ResourceDefinition> = BLOG_RESOURCES;

/** Every name the configuration or the API gives a meaning to: random names must miss all of them. */
const KNOWN = new Set<string>([
  ...Object.keys(RESOURCES),
  ...Object.values(RESOURCES).flatMap((r) => Object.keys(r.fields)),
  'id',
  'created_at',
  'updated_at',
  'deleted_at',
  'user',
  'editor',
  'read',
  'create',
  'update',
  'delete',
  'created',
  'updated',
  'deleted',
  '_limit',
  '_offset',
  '_sort',
  'fields',
  'events',
  'token',
  'lastEventId',
  'page',
]);

/** Prototype members, and random identifiers (safe in paths and header values) that name nothing. */
const name: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,24}$/).filter((n) => !KNOWN.has(n)) },
);

const RUNS = 25;

for (const dialect of testDialects()) {
  describe(`names every object answers to, on ${dialect}`, () => {
    let t: TestApp;
    let user: string;
    let editor: string;
    let userEmail: string;
    let userPost: string;
    let scopedToPosts: string;
    const USER_ID = `proto-user-${dialect}`;

    const expectAnswer = async (
      options: Parameters<TestApp['request']>[0],
      expectation: Omit<Expectation, 'hidden' | 'label'>,
    ) => {
      const response = await send(t, options);
      checkAnswer(response, {
        ...expectation,
        hidden: [],
        label: `${options.method} ${String(options.url)} ${JSON.stringify(options.payload ?? '')}`.slice(0, 400),
      });
      return response;
    };
    const json = (body: unknown) => ({
      payload: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });

    before(async () => {
      t = await startTestApp(dialect, {
        resources: RESOURCES,
        apiKeys: { rateLimit: { enabled: false, max: 1000, timeWindow: 60000 } },
      });
      userEmail = `proto-${dialect}@example.test`;
      await createTestUser(t.ctx, { id: USER_ID, email: userEmail, role: 'user' });
      const issue = async (permissions?: object) => {
        const response = await t.request({
          method: 'POST',
          url: '/token',
          payload: { email: userEmail, password: TEST_PASSWORD, ...(permissions ? { permissions } : {}) },
        });
        assert.equal(response.statusCode, 201, response.body);
        return `Bearer ${response.json().key as string}`;
      };
      user = await issue();
      scopedToPosts = await issue({ posts: { read: ['*'], create: ['*'] } });
      editor = await t.as('editor');
      const created = await t.request({ method: 'POST', url: '/v1/posts', auth: user, payload: { title: 'mine' } });
      assert.equal(created.statusCode, 201, created.body);
      userPost = created.json().data.id;
    });
    after(() => t.close());

    it('answers 404 for resource names in paths, on every resource route', async () => {
      await fuzz(RUNS, [name], async (resource) => {
        const path = `/v1/${encodeURIComponent(resource)}`;
        const errors: ErrorCode[] = ['RESOURCE_NOT_FOUND'];
        for (const url of [path, `${path}/${userPost}`, `${path}/schema`, `${path}/stream`])
          await expectAnswer({ method: 'GET', url, auth: user }, { errors });
        await expectAnswer({ method: 'POST', url: path, auth: user, ...json({ title: 'x' }) }, { errors });
        await expectAnswer(
          { method: 'PATCH', url: `${path}/${userPost}`, auth: user, ...json({ title: 'x' }) },
          { errors },
        );
        await expectAnswer({ method: 'DELETE', url: `${path}/${userPost}`, auth: user }, { errors });
      });
    });

    it('refuses field names in filters, fields= and _sort', async () => {
      await fuzz(RUNS, [name], async (field) => {
        const q = encodeURIComponent(field);
        const refused: ErrorCode[] = ['INVALID_QUERY_PARAMS', 'INVALID_FIELDS'];
        for (const query of [
          `${q}=x`,
          `${q}__eq=x`,
          `${q}__in=a,b`,
          `title__${q}=x`,
          `fields=title,${q}`,
          `_sort=${q}`,
          `_sort=-${q}`,
        ]) {
          await expectAnswer({ method: 'GET', url: `/v1/posts?${query}`, auth: user }, { errors: refused });
        }
        await expectAnswer(
          { method: 'GET', url: `/v1/posts/stream?fields=${q}`, auth: user },
          { errors: ['INVALID_QUERY_PARAMS'] },
        );
      });
    });

    it('refuses a __proto__ member anywhere in a body, pointing at it, and keeps the row as it was', async () => {
      const nestedAt = await expectAnswer(
        {
          method: 'PATCH',
          url: `/v1/posts/${userPost}`,
          auth: user,
          payload: '{"title":"changed","tags":{"a":[{"__proto__":{"polluted":true}}]}}',
          headers: { 'content-type': 'application/json' },
        },
        { errors: ['INVALID_RESOURCE_DATA'] },
      );
      assert.equal(nestedAt.json().errors[0].source.pointer, '/data/attributes/tags/a/0/__proto__');
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });

    it('refuses field names in bodies, as own members of the JSON object', async () => {
      await fuzz(RUNS, [name], async (field) => {
        const errors: ErrorCode[] = ['INVALID_RESOURCE_DATA', 'INVALID_FIELDS'];
        await expectAnswer(
          { method: 'POST', url: '/v1/posts', auth: user, ...json({ title: 'x', [field]: 'y' }) },
          { errors },
        );
        await expectAnswer(
          { method: 'PATCH', url: `/v1/posts/${userPost}`, auth: user, ...json({ [field]: 'y' }) },
          { errors },
        );
        await expectAnswer(
          {
            method: 'PUT',
            url: `/v1/posts/${userPost}`,
            auth: user,
            ...json({ title: 'x', [field]: { nested: true } }),
          },
          { errors },
        );
      });
      // Nothing written through a prototype member: the post is as it was.
      const post = await t.request({ method: 'GET', url: `/v1/posts/${userPost}`, auth: user });
      assert.equal(post.json().data.attributes.title, 'mine');
    });

    it('answers X-Service-Role naming an undefined role with 403 FORBIDDEN', async () => {
      await fuzz(RUNS, [name], async (role) => {
        for (const [method, url] of [
          ['GET', '/v1/posts'],
          ['POST', '/v1/posts'],
          ['GET', '/v1/categories'],
          ['POST', '/v1/comments'],
          ['GET', '/v1/posts/stream'],
        ] as const) {
          const body = method === 'POST' ? json({ title: 'x', body: 'x' }) : { headers: {} };
          await expectAnswer(
            { method, url, auth: user, ...body, headers: { ...body.headers, 'x-service-role': role } },
            { errors: ['FORBIDDEN'] },
          );
        }
      });
    });

    it('refuses undefined roles in the admin API, and the user keeps its role', async () => {
      await fuzz(RUNS, [name], async (role) => {
        const at = `/admin/users/${USER_ID}`;
        const primary = await expectAnswer(
          { method: 'PATCH', url: at, auth: t.admin, ...json({ primaryRole: role }) },
          { errors: ['INVALID_RESOURCE_DATA'] },
        );
        assert.deepEqual(
          primary.json().errors.map((e: { source: { pointer: string } }) => e.source.pointer),
          ['/data/attributes/primaryRole'],
        );
        const allowed = await expectAnswer(
          { method: 'PATCH', url: at, auth: t.admin, ...json({ allowedRoles: ['editor', role] }) },
          { errors: ['INVALID_RESOURCE_DATA'] },
        );
        assert.deepEqual(
          allowed.json().errors.map((e: { source: { pointer: string } }) => e.source.pointer),
          ['/data/attributes/allowedRoles/1'],
        );
      });
      const stored = await t.request({ method: 'GET', url: `/admin/users/${USER_ID}`, auth: t.admin });
      assert.equal(stored.json().data.attributes.primaryRole, 'user');
      assert.equal(stored.json().data.attributes.allowedRoles, '[]');
    });

    it('refuses key permissions naming unknown resources or actions at /token', async () => {
      await fuzz(RUNS, [name], async (member) => {
        const credentials = { email: userEmail, password: TEST_PASSWORD };
        // A `__proto__` member is refused by the body parser itself (400 INVALID_RESOURCE_DATA).
        const errors: ErrorCode[] = member === '__proto__' ? ['INVALID_RESOURCE_DATA'] : ['INVALID_PERMISSIONS'];
        await expectAnswer(
          { method: 'POST', url: '/token', ...json({ ...credentials, permissions: { [member]: { read: [] } } }) },
          { errors },
        );
        await expectAnswer(
          { method: 'POST', url: '/token', ...json({ ...credentials, permissions: { posts: { [member]: [] } } }) },
          { errors },
        );
        await expectAnswer(
          { method: 'POST', url: '/token', ...json({ ...credentials, permissions: { posts: { read: [member] } } }) },
          { errors: ['INVALID_PERMISSIONS'] },
        );
      });
    });

    it('grants a key scoped to posts nothing elsewhere, and a role only the actions it was given', async () => {
      await expectAnswer(
        { method: 'GET', url: '/v1/categories', auth: scopedToPosts },
        { errors: ['KEY_PERMISSION_DENIED'] },
      );
      await expectAnswer({ method: 'GET', url: '/v1/categories', auth: user }, { ok: [200] });
      await expectAnswer(
        { method: 'POST', url: '/v1/categories', auth: user, ...json({ name: 'x' }) },
        { errors: ['FORBIDDEN'] },
      );
      await expectAnswer(
        { method: 'POST', url: '/v1/categories', auth: editor, ...json({ name: 'by editor' }) },
        { ok: [201] },
      );
    });

    it('keeps webhook header names, prototype members included, as given', async () => {
      await fuzz(RUNS, [name], async (header) => {
        if (header === '__proto__') {
          const refused = await expectAnswer(
            {
              method: 'POST',
              url: '/admin/webhooks',
              auth: t.admin,
              ...json({
                name: 'h',
                url: 'http://127.0.0.1:9/hook',
                eventPattern: 'posts.*',
                headers: { [header]: 'v' },
              }),
            },
            { errors: ['INVALID_RESOURCE_DATA'] },
          );
          assert.equal(refused.json().errors[0].source.pointer, '/data/attributes/headers/__proto__');
          return;
        }
        const response = await expectAnswer(
          {
            method: 'POST',
            url: '/admin/webhooks',
            auth: t.admin,
            ...json({
              name: 'h',
              url: 'http://127.0.0.1:9/hook',
              eventPattern: 'posts.*',
              enabled: false,
              headers: { [header]: 'v' },
            }),
          },
          { ok: [201] },
        );
        const id = response.json().data.id as string;
        const read = await expectAnswer({ method: 'GET', url: `/admin/webhooks/${id}`, auth: t.admin }, { ok: [200] });
        assert.deepEqual(Object.entries(read.json().data.attributes.headers), [[header, 'v']]);
        await expectAnswer({ method: 'DELETE', url: `/admin/webhooks/${id}`, auth: t.admin }, { ok: [204] });
      });
    });

    it('refuses event kinds that name nothing in ?events=', async () => {
      await fuzz(RUNS, [name], async (kind) => {
        for (const events of [kind, `created,${kind}`]) {
          await expectAnswer(
            { method: 'GET', url: `/v1/posts/stream?events=${encodeURIComponent(events)}`, auth: user },
            { errors: ['INVALID_QUERY_PARAMS'] },
          );
        }
      });
    });
  });
}
