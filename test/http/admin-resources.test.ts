// GET /admin/resources and /admin/resources/:name: the definitions in force as JSON:API documents, with
// when and from which file they were applied; admin token only; a reload (here, and on another node
// on the same database) shows at once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp, type BuiltApp } from '../../src/server.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { BLOG_RESOURCES, testConfig } from '../helpers/test-config.ts';
import { loadConfigFromObject } from '../../src/resources/config-loader.ts';

type Json = Record<string, any>;

for (const dialect of testDialects()) {
  describe(`admin resource definitions (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect);
    });
    after(() => t.close());

    const get = (url: string, auth?: string) => t.request({ method: 'GET', url, ...(auth ? { auth } : {}) });

    const refusals = [
      { name: 'no credentials', auth: async () => undefined, status: 401, code: 'UNAUTHORIZED' },
      {
        name: 'an unknown bearer token',
        auth: async () => 'Bearer svc_not-a-key',
        status: 401,
        code: 'INVALID_API_KEY',
      },
      { name: "a user's API key", auth: () => t.as('editor'), status: 403, code: 'FORBIDDEN' },
    ];
    for (const refusal of refusals) {
      for (const url of ['/admin/resources', '/admin/resources/posts']) {
        it(`answers ${refusal.status} ${refusal.code} to ${refusal.name} on ${url}`, async () => {
          const response = await get(url, await refusal.auth());
          assert.equal(response.statusCode, refusal.status, response.body);
          assert.equal(response.json().errors[0].code, refusal.code);
        });
      }
    }

    it('lists every resource as a JSON:API document of type resources', async () => {
      const response = await get('/admin/resources', t.admin);
      assert.equal(response.statusCode, 200, response.body);
      assert.match(String(response.headers['content-type']), /^application\/vnd\.api\+json/);
      const body = response.json<Json>();
      assert.deepEqual(
        body.data.map((d: Json) => [d.type, d.id, d.links.self]),
        [
          ['resources', 'categories', '/admin/resources/categories'],
          ['resources', 'posts', '/admin/resources/posts'],
          ['resources', 'comments', '/admin/resources/comments'],
        ],
      );
      assert.equal(body.meta.total, 3);
      assert.equal(body.meta.appliedFrom, null, 'the test app was given no config file');
      assert.ok(Number.isInteger(body.meta.definitionsVersion));
      assert.ok(!Number.isNaN(Date.parse(body.meta.appliedAt)));
      assert.deepEqual(body.links, { self: '/admin/resources' });
    });

    it('shows fields with their type and attributes, and permissions per role', async () => {
      const response = await get('/admin/resources/posts', t.admin);
      assert.equal(response.statusCode, 200, response.body);
      const { attributes } = response.json<Json>().data;
      assert.equal(attributes.enabled, true);
      assert.equal(attributes.softDelete, true);
      assert.equal(attributes.description, null);
      assert.deepEqual(Object.keys(attributes.fields), Object.keys(BLOG_RESOURCES.posts!.fields), 'definition order');
      assert.deepEqual(attributes.fields.title, {
        type: 'string',
        id: 'posts.title',
        required: true,
        nullable: false,
        unique: false,
        sortable: true,
        maxLength: 200,
      });
      assert.deepEqual(attributes.fields.author_id, {
        type: 'string',
        id: 'posts.author_id',
        required: false,
        nullable: true,
        unique: false,
        sortable: false,
        maxLength: 255,
      });
      assert.deepEqual(attributes.fields.status, {
        type: 'enum',
        id: 'posts.status',
        required: false,
        nullable: true,
        unique: false,
        sortable: true,
        default: 'draft',
        values: ['draft', 'published'],
      });
      assert.deepEqual(attributes.fields.views, {
        type: 'integer',
        id: 'posts.views',
        required: false,
        nullable: true,
        unique: false,
        sortable: true,
        default: 0,
        minimum: 0,
      });
      assert.deepEqual(attributes.fields.category_id, {
        type: 'relation',
        id: 'posts.category_id',
        required: false,
        nullable: true,
        unique: false,
        sortable: false,
        resource: 'categories',
        onDelete: 'restrict',
      });
      const all = { fields: '*' };
      assert.deepEqual(attributes.permissions.editor, { read: all, create: all, update: all, delete: all });
      assert.deepEqual(attributes.permissions.user, {
        read: {
          fields: ['title', 'body', 'status', 'views', 'author_id', 'category_id'],
          filter: { _or: [{ status: { eq: 'published' } }, { author_id: { eq: '$userId' } }] },
        },
        create: { fields: ['title', 'body', 'status', 'category_id'], preset: { author_id: '$userId' } },
        update: { fields: ['title', 'body', 'status'], filter: { author_id: { eq: '$userId' } } },
        delete: { fields: '*', filter: { author_id: { eq: '$userId' } } },
      });
      const categories = (await get('/admin/resources/categories', t.admin)).json<Json>().data.attributes;
      assert.equal(categories.fields.name.unique, true);
      assert.equal(categories.softDelete, false);
    });

    it('answers 404 RESOURCE_NOT_FOUND for an unknown name, Object members included', async () => {
      for (const name of ['nothing', 'constructor', '__proto__', 'toString']) {
        const response = await get(`/admin/resources/${name}`, t.admin);
        assert.equal(response.statusCode, 404, `${name}: ${response.body}`);
        assert.equal(response.json().errors[0].code, 'RESOURCE_NOT_FOUND');
      }
    });

    it('refuses query parameters it does not know', async () => {
      const response = await get('/admin/resources?_limit=1', t.admin);
      assert.equal(response.statusCode, 400);
      assert.deepEqual(
        [response.json().errors[0].code, response.json().errors[0].source.parameter],
        ['INVALID_QUERY_PARAMS', '_limit'],
      );
    });

    describe('after a reload, here and on another node', () => {
      let other: BuiltApp;
      const reloaded: Record<string, ResourceDefinition> = {
        ...BLOG_RESOURCES,
        tags: {
          description: 'Labels',
          fields: { label: { type: 'string', required: true, unique: true, maxLength: 40, id: 'tag.label' } },
          permissions: { editor: { read: true } },
        },
        archive: { enabled: false, fields: { note: { type: 'text' } } },
      };

      before(async () => {
        other = await buildApp({ config: testConfig(t.database.url) });
        await other.app.ready();
      });
      after(() => other.app.close());

      it('shows the reloaded definitions with the file they came from, on both nodes', async () => {
        const before = (await get('/admin/resources', t.admin)).json<Json>().meta;
        const file = '/etc/svc/reloaded.yaml';
        // As a reload gives them: validated, defaults filled.
        const { resources } = loadConfigFromObject({ database: { url: 'sqlite::memory:' }, resources: reloaded });
        assert.equal(await t.ctx.definitions.apply(resources, file), true);
        const here = (await get('/admin/resources', t.admin)).json<Json>();
        assert.deepEqual(
          here.data.map((d: Json) => d.id),
          ['categories', 'posts', 'comments', 'tags', 'archive'],
        );
        assert.equal(here.meta.appliedFrom, file);
        assert.ok(here.meta.definitionsVersion > before.definitionsVersion);
        assert.ok(Date.parse(here.meta.appliedAt) >= Date.parse(before.appliedAt));
        const tags = here.data[3].attributes;
        assert.deepEqual(tags.fields.label, {
          type: 'string',
          id: 'tag.label',
          required: true,
          nullable: false,
          unique: true,
          sortable: false,
          maxLength: 40,
        });
        assert.equal(tags.description, 'Labels');
        assert.deepEqual(tags.permissions, { editor: { read: { fields: '*' } } });
        assert.equal(here.data[4].attributes.enabled, false, 'a disabled resource is listed');
        assert.deepEqual(here.data[4].attributes.permissions, {});

        await other.ctx.signals.poll();
        const there = await other.app.inject({
          method: 'GET',
          url: '/admin/resources',
          headers: { authorization: t.admin },
        });
        assert.equal(there.statusCode, 200, there.body);
        assert.deepEqual(there.json(), here, 'the other node shows the shared record');
      });

      it('serializes role names that are Object members as plain data', async () => {
        const permissions = JSON.parse(
          '{"__proto__": {"read": true}, "constructor": {"read": {"fields": ["note"], "filter": {"note": {"eq": "x"}}}}}',
        );
        const raw = {
          database: { url: 'sqlite::memory:' },
          resources: { notes: { fields: { note: { type: 'text' } }, permissions } },
        };
        const { resources } = loadConfigFromObject(raw);
        assert.equal(await t.ctx.definitions.apply(resources, null), true);
        const response = await get('/admin/resources/notes', t.admin);
        assert.equal(response.statusCode, 200, response.body);
        const text = response.body;
        const shown = JSON.parse(text).data.attributes.permissions;
        assert.deepEqual(Object.keys(shown), ['__proto__', 'constructor']);
        assert.deepEqual(Object.getOwnPropertyDescriptor(shown, '__proto__')?.value, { read: { fields: '*' } });
        assert.deepEqual(shown.constructor, { read: { fields: ['note'], filter: { note: { eq: 'x' } } } });
        assert.equal(JSON.parse(text).data.attributes.appliedFrom, null);
      });
    });
  });
}
