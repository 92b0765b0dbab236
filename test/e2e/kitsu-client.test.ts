// svc used by a JSON:API client no one here wrote: the npm `kitsu` client with its default options, over
// HTTP against a listening svc, with an API key from /token. Everything it sends is its own:
// application/vnd.api+json documents, `filter[field]=` lists, `sort=`, `page[size]`/`page[number]`, a
// relation id as the attribute reads return, PATCH with data.id, DELETE with a body.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Kitsu from 'kitsu';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createTestUser, TEST_PASSWORD } from '../helpers/test-user.ts';

/** A record as kitsu deserialises it: attributes hoisted beside type and id. */
interface KitsuPost {
  type: string;
  id: string;
  title: string;
  views: number;
  status: string;
  /** An id while relations are attributes; kitsu's `{ data: { id } }` (or the linked record) once they are relationships. */
  category_id: string | { id?: string; data?: { id: string } | null } | null;
}

function relatedId(value: KitsuPost['category_id']): string | null {
  if (value === null || typeof value === 'string') return value;
  return value.data !== undefined ? (value.data?.id ?? null) : (value.id ?? null);
}

interface KitsuError {
  status?: number;
  errors?: { code: string; source?: { pointer?: string } }[];
}

for (const dialect of testDialects()) {
  describe(`the kitsu JSON:API client against svc on ${dialect}`, () => {
    let t: TestApp;
    let api: Kitsu;
    let categoryId: string;
    /** Created through kitsu; later steps update and delete it. */
    let createdId: string;

    before(async () => {
      t = await startTestApp(dialect);
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
      await createTestUser(t.ctx, { id: 'kitsu-user', email: 'kitsu@example.com', role: 'editor' });
      const issued = await fetch(`${address}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'kitsu@example.com', password: TEST_PASSWORD, name: 'kitsu' }),
      });
      assert.equal(issued.status, 201, await issued.clone().text());
      const { key } = (await issued.json()) as { key: string };
      // kitsu's defaults (kebab-case, pluralised paths; camelCase types): svc's one-word plural names pass through.
      api = new Kitsu({ baseURL: `${address}/v1`, headers: { Authorization: `Bearer ${key}` } });

      const category = await api.create('categories', { name: 'News' });
      categoryId = category.data.id;
      for (const [title, views, status] of [
        ['Alpha', 10, 'published'],
        ['Beta', 20, 'draft'],
        ['Gamma', 30, 'published'],
      ] as const) {
        await api.create('posts', { title, views, status });
      }
    });
    after(() => t.close());

    it('lists with a filter (filter[field] and filter[field][op]) and a page size', async () => {
      const published = await api.get('posts', { params: { filter: { status: 'published' } } });
      assert.deepEqual((published.data as KitsuPost[]).map((p) => p.title).sort(), ['Alpha', 'Gamma']);
      assert.equal(published.meta.total, 2);

      const busy = await api.get('posts', { params: { filter: { views: { gte: 20 } }, page: { limit: 1 } } });
      assert.equal((busy.data as KitsuPost[]).length, 1);
      assert.equal(busy.meta.total, 2);
      assert.ok((busy.data as KitsuPost[]).every((p) => p.type === 'posts' && p.views >= 20));
    });

    it('sorts with JSON:API sort and pages with page[size]/page[number], following the links', async () => {
      const sorted = await api.get('posts', { params: { sort: '-views' } });
      assert.deepEqual(
        (sorted.data as KitsuPost[]).map((p) => p.title),
        ['Gamma', 'Beta', 'Alpha'],
      );

      const seen: string[] = [];
      let params: Record<string, unknown> = { sort: 'title', page: { size: 2, number: 1 } };
      for (let pages = 0; pages < 5; pages++) {
        const page = await api.get('posts', { params });
        seen.push(...(page.data as KitsuPost[]).map((p) => p.title));
        const next = (page.links as { next?: string } | undefined)?.next;
        if (next === undefined) break;
        // A link is a path with the whole query; kitsu takes a model and params, so the link's query becomes params.
        const url = new URL(next, 'http://svc.invalid');
        assert.equal(url.pathname, '/v1/posts');
        assert.equal(url.searchParams.get('page[number]'), String(pages + 2), 'links page the way the request did');
        params = Object.fromEntries(url.searchParams);
      }
      assert.deepEqual(seen, ['Alpha', 'Beta', 'Gamma']);
    });

    it('creates a record with the relation id as an attribute, as reads return it', async () => {
      const created = await api.create('posts', { title: 'Attribute relation', category_id: categoryId });
      const post = created.data as KitsuPost;
      assert.equal(relatedId(post.category_id), categoryId);
      const fetched = await api.get(`posts/${post.id}`, { params: { include: 'category' } });
      assert.equal(
        (fetched.data as KitsuPost & { category?: { data?: { name?: string } } }).category?.data?.name,
        'News',
      );
      await api.delete('posts', post.id);
    });

    it('creates a record from a JSON:API document with a to-one relationship', async () => {
      const created = await api.create('posts', {
        title: 'From kitsu',
        views: 5,
        category_id: { data: { type: 'categories', id: categoryId } },
      });
      const post = created.data as KitsuPost;
      assert.equal(post.type, 'posts');
      assert.equal(post.title, 'From kitsu');
      assert.equal(relatedId(post.category_id), categoryId);
      createdId = post.id;
    });

    it('fetches one record', async () => {
      const fetched = await api.get(`posts/${createdId}`);
      const post = fetched.data as KitsuPost;
      assert.equal(post.id, createdId);
      assert.equal(post.title, 'From kitsu');
      assert.equal(post.views, 5);
    });

    it('updates a record with PATCH and data.id', async () => {
      const updated = await api.update('posts', { id: createdId, title: 'Edited by kitsu', status: 'published' });
      assert.equal((updated.data as KitsuPost).title, 'Edited by kitsu');
      const fetched = await api.get(`posts/${createdId}`);
      assert.equal((fetched.data as KitsuPost).status, 'published');
      assert.equal((fetched.data as KitsuPost).views, 5, 'a PATCH keeps what it leaves out');
    });

    it('gets errors that point into the document it sent', async () => {
      const failure = (await api.create('posts', { title: 'x'.repeat(201) }).then(
        () => assert.fail('created an invalid post'),
        (error: unknown) => error,
      )) as KitsuError;
      assert.equal(failure.status, 400);
      assert.equal(failure.errors?.[0]?.code, 'INVALID_RESOURCE_DATA');
      assert.equal(failure.errors?.[0]?.source?.pointer, '/data/attributes/title');
    });

    it('fetches a record with its related record included, and relinks it under the name answers give it', async () => {
      type Linked = { id?: string; name?: string; data?: { id?: string; name?: string } | null };
      const fetched = await api.get(`posts/${createdId}`, { params: { include: 'category' } });
      const linked = (fetched.data as KitsuPost & { category?: Linked }).category;
      const category = linked?.data ?? linked;
      assert.equal(category?.id, categoryId);
      assert.equal(category?.name, 'News', 'the included category, resolved by kitsu');

      const other = await api.create('categories', { name: 'Other' });
      const updated = await api.update('posts', {
        id: createdId,
        category: { data: { type: 'categories', id: other.data.id } },
      });
      assert.equal(relatedId((updated.data as KitsuPost).category_id), other.data.id);
    });

    it('deletes a record', async () => {
      const deleted = await api.delete('posts', createdId);
      assert.equal(deleted.status, 204);
      const gone = (await api.get(`posts/${createdId}`).then(
        () => assert.fail('still there'),
        (error: unknown) => error,
      )) as KitsuError;
      assert.equal(gone.status, 404);
      assert.equal(gone.errors?.[0]?.code, 'RESOURCE_NOT_FOUND');
    });
  });
}
