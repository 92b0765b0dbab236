// JSON:API request documents on POST, PUT and PATCH (docs/records.md), on every dialect: translation to
// the flat body, 409 for a type or id that is not the URL's, 403 for a client-generated id, pointers
// into the document, and flat bodies under either media type left as they were.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { BLOG_RESOURCES } from '../helpers/test-config.ts';

const JSON_API = 'application/vnd.api+json';

interface ErrorObject {
  code: string;
  status: string;
  detail: string;
  source?: { pointer?: string };
}

interface ResourceObject {
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data?: { id: string } | null }>;
}

/** The id a relation field holds, whether the answer shows it as an attribute or as relationship linkage. */
function relatedId(data: ResourceObject, field: string): unknown {
  const relationship = data.relationships?.[field];
  return relationship !== undefined && 'data' in relationship
    ? (relationship.data?.id ?? null)
    : data.attributes[field];
}

for (const dialect of testDialects()) {
  describe(`JSON:API request documents on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    let news: string;
    let sport: string;

    const send = (method: 'POST' | 'PUT' | 'PATCH', url: string, payload: unknown, contentType = JSON_API) =>
      t.request({
        method,
        url,
        auth: editor,
        payload: JSON.stringify(payload),
        headers: { 'content-type': contentType },
      });
    const errorsOf = (response: { json(): unknown }) => (response.json() as { errors: ErrorObject[] }).errors;
    const pointers = (response: { json(): unknown }) => errorsOf(response).map((e) => e.source?.pointer);
    const countPosts = async () =>
      (await t.request({ method: 'GET', url: '/v1/posts', auth: editor })).json().meta.total as number;
    const newPost = async (title: string) => {
      const created = await send('POST', '/v1/posts', { title });
      assert.equal(created.statusCode, 201, created.body);
      return created.json().data.id as string;
    };

    before(async () => {
      t = await startTestApp(dialect, {
        resources: {
          ...BLOG_RESOURCES,
          // A field named `data`: a flat body holding it must not be mistaken for a document.
          // It also takes client-generated ids.
          notes: {
            clientIds: true,
            fields: { data: { type: 'json' }, label: { type: 'string' } },
            permissions: { editor: { read: true, create: true, update: true, delete: true } },
          },
        },
      });
      editor = await t.as('editor');
      news = (await send('POST', '/v1/categories', { name: 'News' })).json().data.id;
      sport = (await send('POST', '/v1/categories', { name: 'Sport' })).json().data.id;
    });
    after(() => t.close());

    it('creates from a document: attributes become fields, a to-one relationship its id', async () => {
      const response = await send('POST', '/v1/posts', {
        data: {
          type: 'posts',
          lid: 'local-1',
          attributes: { title: 'From a document', views: 3 },
          relationships: { category_id: { data: { type: 'categories', id: news } } },
          meta: { ignored: true },
          links: {},
        },
        meta: { ignored: true },
        jsonapi: { version: '1.0' },
      });
      assert.equal(response.statusCode, 201, response.body);
      const { data } = response.json();
      assert.equal(data.type, 'posts');
      assert.equal(response.headers.location, `/v1/posts/${data.id}`);
      assert.equal(data.attributes.title, 'From a document');
      assert.equal(data.attributes.views, 3);
      assert.equal(relatedId(data, 'category_id'), news);
      const fetched = await t.request({ method: 'GET', url: `/v1/posts/${data.id}`, auth: editor });
      assert.equal(relatedId(fetched.json().data, 'category_id'), news);
    });

    it('takes a relationship under the name answers give it (`category` for category_id), and points its errors there', async () => {
      const response = await send('POST', '/v1/posts', {
        data: {
          type: 'posts',
          attributes: { title: 'By relationship name' },
          relationships: { category: { data: { type: 'categories', id: sport } } },
        },
      });
      assert.equal(response.statusCode, 201, response.body);
      const { data } = response.json();
      assert.equal(data.attributes.category_id, sport);
      assert.deepEqual(
        data.relationships.category.data,
        { type: 'categories', id: sport },
        'the name the answer uses is the name it took',
      );

      const missing = await send('POST', '/v1/posts', {
        data: {
          type: 'posts',
          attributes: { title: 'x' },
          relationships: { category: { data: { type: 'categories', id: '0190b5a2-7c1e-7d3a-9f00-3c5e2a1b4d6f' } } },
        },
      });
      assert.equal(missing.statusCode, 400, missing.body);
      assert.deepEqual(pointers(missing), ['/data/relationships/category']);
      const wrongType = await send('POST', '/v1/posts', {
        data: {
          type: 'posts',
          attributes: { title: 'x' },
          relationships: { category: { data: { type: 'posts', id: sport } } },
        },
      });
      assert.equal(wrongType.statusCode, 409, wrongType.body);
      assert.deepEqual(pointers(wrongType), ['/data/relationships/category/data/type']);
    });

    it('patches and replaces from a document whose data.id is the URL id; a null linkage clears the relation', async () => {
      const id = await newPost('before');
      const patched = await send('PATCH', `/v1/posts/${id}`, {
        data: {
          type: 'posts',
          id,
          attributes: { views: 7 },
          relationships: { category_id: { data: { type: 'categories', id: sport } } },
        },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.equal(patched.json().data.attributes.title, 'before', 'a patch keeps what the document leaves out');
      assert.equal(patched.json().data.attributes.views, 7);
      assert.equal(relatedId(patched.json().data, 'category_id'), sport);

      const cleared = await send('PATCH', `/v1/posts/${id}`, {
        data: { type: 'posts', id, relationships: { category_id: { data: null } } },
      });
      assert.equal(cleared.statusCode, 200, cleared.body);
      assert.equal(relatedId(cleared.json().data, 'category_id'), null);

      const replaced = await send('PUT', `/v1/posts/${id}`, {
        data: { type: 'posts', id, attributes: { title: 'after' } },
      });
      assert.equal(replaced.statusCode, 200, replaced.body);
      assert.equal(replaced.json().data.attributes.title, 'after');
      assert.equal(replaced.json().data.attributes.views, 0, 'a replace resets what the document leaves out');
    });

    it('answers 409 CONFLICT for a type that is not the resource, pointing at /data/type, and writes nothing', async () => {
      const before = await countPosts();
      const created = await send('POST', '/v1/posts', { data: { type: 'comments', attributes: { title: 'x' } } });
      assert.equal(created.statusCode, 409, created.body);
      assert.equal(errorsOf(created)[0]!.code, 'CONFLICT');
      assert.deepEqual(pointers(created), ['/data/type']);
      assert.equal(await countPosts(), before);

      const id = await newPost('typed');
      for (const method of ['PATCH', 'PUT'] as const) {
        const response = await send(method, `/v1/posts/${id}`, {
          data: { type: 'categories', id, attributes: { title: 'y' } },
        });
        assert.equal(response.statusCode, 409, `${method}: ${response.body}`);
        assert.deepEqual(pointers(response), ['/data/type']);
      }
      const missing = await send('POST', '/v1/posts', { data: { attributes: { title: 'x' } } });
      assert.equal(missing.statusCode, 400, missing.body);
      assert.deepEqual(pointers(missing), ['/data/type']);
    });

    it('answers 409 CONFLICT for a data.id that is not the URL id, and 400 when PATCH or PUT leaves it out', async () => {
      const id = await newPost('mine');
      const other = await newPost('other');
      for (const method of ['PATCH', 'PUT'] as const) {
        const conflict = await send(method, `/v1/posts/${id}`, {
          data: { type: 'posts', id: other, attributes: { title: 'changed' } },
        });
        assert.equal(conflict.statusCode, 409, `${method}: ${conflict.body}`);
        assert.equal(errorsOf(conflict)[0]!.code, 'CONFLICT');
        assert.deepEqual(pointers(conflict), ['/data/id']);
        const absent = await send(method, `/v1/posts/${id}`, {
          data: { type: 'posts', attributes: { title: 'changed' } },
        });
        assert.equal(absent.statusCode, 400, `${method}: ${absent.body}`);
        assert.deepEqual(pointers(absent), ['/data/id']);
      }
      for (const record of [id, other]) {
        const fetched = await t.request({ method: 'GET', url: `/v1/posts/${record}`, auth: editor });
        assert.notEqual(fetched.json().data.attributes.title, 'changed');
      }
    });

    it('refuses a client-generated id on POST with 403 CLIENT_GENERATED_ID_FORBIDDEN at /data/id', async () => {
      const before = await countPosts();
      const response = await send('POST', '/v1/posts', {
        data: { type: 'posts', id: '0190b5a2-7c1e-7d3a-9f00-3c5e2a1b4d6f', attributes: { title: 'x' } },
      });
      assert.equal(response.statusCode, 403, response.body);
      assert.equal(errorsOf(response)[0]!.code, 'CLIENT_GENERATED_ID_FORBIDDEN');
      assert.deepEqual(pointers(response), ['/data/id']);
      assert.equal(await countPosts(), before);
    });

    it('answers 409 for a linkage whose type is not the relation target, at .../data/type', async () => {
      const response = await send('POST', '/v1/posts', {
        data: {
          type: 'posts',
          attributes: { title: 'x' },
          relationships: { category_id: { data: { type: 'posts', id: news } } },
        },
      });
      assert.equal(response.statusCode, 409, response.body);
      assert.deepEqual(pointers(response), ['/data/relationships/category_id/data/type']);
    });

    it('takes a relation id under attributes, as reads return it, and refuses one that disagrees with relationships', async () => {
      const response = await send('POST', '/v1/posts', {
        data: { type: 'posts', attributes: { title: 'x', category_id: news } },
      });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(
        response.json<{ data: { attributes: { category_id: string } } }>().data.attributes.category_id,
        news,
      );
      const disagreeing = await send('POST', '/v1/posts', {
        data: {
          type: 'posts',
          attributes: { title: 'x', category_id: news },
          relationships: { category: { data: { type: 'categories', id: '0190b5a2-7c1e-7d3a-9f00-3c5e2a1b4d6f' } } },
        },
      });
      assert.equal(disagreeing.statusCode, 400, disagreeing.body);
      assert.equal(errorsOf(disagreeing)[0]!.code, 'INVALID_RESOURCE_DATA');
    });

    it('points validation errors into the document: attributes at /data/attributes, relations at /data/relationships', async () => {
      const invalid = await send('POST', '/v1/posts', {
        data: { type: 'posts', attributes: { title: 'x'.repeat(201), views: -1 } },
      });
      assert.equal(invalid.statusCode, 400, invalid.body);
      assert.deepEqual(pointers(invalid).sort(), ['/data/attributes/title', '/data/attributes/views']);

      const unknownRecord = await send('POST', '/v1/posts', {
        data: {
          type: 'posts',
          attributes: { title: 'x' },
          relationships: { category_id: { data: { type: 'categories', id: '0190b5a2-7c1e-7d3a-9f00-3c5e2a1b4d6f' } } },
        },
      });
      assert.equal(unknownRecord.statusCode, 400, unknownRecord.body);
      assert.equal(errorsOf(unknownRecord)[0]!.code, 'RELATION_REFERENCE_ERROR');
      assert.deepEqual(pointers(unknownRecord), ['/data/relationships/category_id']);

      const post = await newPost('commented');
      const requiredRelation = await send('POST', '/v1/comments', {
        data: { type: 'comments', attributes: { body: 'hi' } },
      });
      assert.equal(requiredRelation.statusCode, 400, requiredRelation.body);
      // Left out, it is named as answers name it.
      assert.deepEqual(pointers(requiredRelation), ['/data/relationships/post']);
      const comment = await send('POST', '/v1/comments', {
        data: {
          type: 'comments',
          attributes: { body: 'hi' },
          relationships: { post_id: { data: { type: 'posts', id: post } } },
        },
      });
      assert.equal(comment.statusCode, 201, comment.body);
      assert.equal(relatedId(comment.json().data, 'post_id'), post);
    });

    it('points text no database stores, and __proto__ members, into the document as well', async () => {
      const unstorable = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: '{"data":{"type":"posts","attributes":{"title":"a\\u0000b","body":"\\ud800"}}}',
        headers: { 'content-type': JSON_API },
      });
      assert.equal(unstorable.statusCode, 400, unstorable.body);
      assert.deepEqual(pointers(unstorable).sort(), ['/data/attributes/body', '/data/attributes/title']);
      const proto = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: '{"data":{"type":"posts","attributes":{"title":"x","__proto__":{"views":1}}}}',
        headers: { 'content-type': JSON_API },
      });
      assert.equal(proto.statusCode, 400, proto.body);
      assert.deepEqual(pointers(proto), ['/data/attributes/__proto__']);
      // A flat body keeps its pointers under either media type.
      const flat = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: '{"title":"a\\u0000b"}',
        headers: { 'content-type': JSON_API },
      });
      assert.deepEqual(pointers(flat), ['/data/attributes/title']);
    });

    it('answers 400 with a pointer for a malformed document', async () => {
      const cases: [unknown, string][] = [
        [{ data: [{ type: 'posts' }] }, '/data'],
        [{ data: null }, '/data'],
        [{ data: 'posts' }, '/data'],
        [{ data: { type: 7, attributes: {} } }, '/data/type'],
        [{ data: { type: 'posts', attributes: ['title'] } }, '/data/attributes'],
        [{ data: { type: 'posts', attributes: { title: 'x' }, relationships: [] } }, '/data/relationships'],
        [
          { data: { type: 'posts', attributes: { title: 'x' }, relationships: { category_id: news } } },
          '/data/relationships/category_id',
        ],
        [
          { data: { type: 'posts', attributes: { title: 'x' }, relationships: { category_id: { id: news } } } },
          '/data/relationships/category_id',
        ],
        [
          { data: { type: 'posts', attributes: { title: 'x' }, relationships: { category_id: { data: news } } } },
          '/data/relationships/category_id/data',
        ],
        [
          {
            data: {
              type: 'posts',
              attributes: { title: 'x' },
              relationships: { category_id: { data: [{ type: 'categories', id: news }] } },
            },
          },
          '/data/relationships/category_id/data',
        ],
        [
          {
            data: {
              type: 'posts',
              attributes: { title: 'x' },
              relationships: { category_id: { data: { type: 'categories', id: 5 } } },
            },
          },
          '/data/relationships/category_id/data/id',
        ],
        [
          { data: { type: 'posts', attributes: { title: 'x' }, relationships: { title: { data: null } } } },
          '/data/relationships/title',
        ],
        [
          { data: { type: 'posts', attributes: { title: 'x' }, relationships: { nope: { data: null } } } },
          '/data/relationships/nope',
        ],
        [{ data: { type: 'posts', title: 'x' } }, '/data/title'],
        [{ data: { type: 'posts', attributes: { title: 'x' } }, included: [] }, '/included'],
      ];
      const before = await countPosts();
      for (const [document, pointer] of cases) {
        const response = await send('POST', '/v1/posts', document);
        assert.equal(response.statusCode, 400, `${JSON.stringify(document)}: ${response.body}`);
        assert.equal(errorsOf(response)[0]!.code, 'INVALID_RESOURCE_DATA');
        assert.deepEqual(pointers(response), [pointer], JSON.stringify(document));
      }
      assert.equal(await countPosts(), before);
    });

    it('keeps flat bodies as they were, under application/json and application/vnd.api+json alike', async () => {
      for (const type of ['application/json', JSON_API]) {
        const created = await send('POST', '/v1/posts', { title: 'flat', category_id: news }, type);
        assert.equal(created.statusCode, 201, `${type}: ${created.body}`);
        assert.equal(relatedId(created.json().data, 'category_id'), news);
        const invalid = await send('POST', '/v1/posts', { title: 'x'.repeat(201) }, type);
        assert.deepEqual(pointers(invalid), ['/data/attributes/title'], type);
      }
      // A document sent as plain JSON is a flat body with an unknown member, as before.
      const plain = await send(
        'POST',
        '/v1/posts',
        { data: { type: 'posts', attributes: { title: 'x' } } },
        'application/json',
      );
      assert.equal(plain.statusCode, 400, plain.body);
      assert.deepEqual(pointers(plain).sort(), ['/data/attributes/data', '/data/attributes/title']);
    });

    it('reads a flat body as flat when the resource has a field named data, unless it is plainly a document', async () => {
      const flat = await send('POST', '/v1/notes', { data: { kind: 'x' }, label: 'flat' });
      assert.equal(flat.statusCode, 201, flat.body);
      assert.deepEqual(flat.json().data.attributes.data, { kind: 'x' });
      const flatOnly = await send('POST', '/v1/notes', { data: { attributes: 1 } });
      assert.equal(flatOnly.statusCode, 201, flatOnly.body);
      assert.deepEqual(flatOnly.json().data.attributes.data, { attributes: 1 });

      const document = await send('POST', '/v1/notes', {
        data: { type: 'notes', attributes: { data: [1, 2], label: 'doc' } },
      });
      assert.equal(document.statusCode, 201, document.body);
      assert.deepEqual(document.json().data.attributes.data, [1, 2]);
      assert.equal(document.json().data.attributes.label, 'doc');
    });

    it('takes a client-generated UUID on POST where the resource sets clientIds, and answers 409 when it is taken', async () => {
      const id = '0B1E1C4E-3C9A-4D8E-9A57-2F0C1E0A9B11';
      const created = await send('POST', '/v1/notes', { data: { type: 'notes', id, attributes: { label: 'mine' } } });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.json().data.id, id.toLowerCase());
      assert.equal(created.headers.location, `/v1/notes/${id.toLowerCase()}`);
      const fetched = await t.request({ method: 'GET', url: `/v1/notes/${id.toLowerCase()}`, auth: editor });
      assert.equal(fetched.json().data.attributes.label, 'mine');

      for (const again of [id, id.toLowerCase()]) {
        const taken = await send('POST', '/v1/notes', {
          data: { type: 'notes', id: again, attributes: { label: 'again' } },
        });
        assert.equal(taken.statusCode, 409, taken.body);
        assert.equal(errorsOf(taken)[0]!.code, 'CONFLICT');
        assert.deepEqual(pointers(taken), ['/data/id']);
      }
      for (const bad of ['not-a-uuid', 42, '']) {
        const refused = await send('POST', '/v1/notes', {
          data: { type: 'notes', id: bad, attributes: { label: 'bad' } },
        });
        assert.equal(refused.statusCode, 400, `${String(bad)}: ${refused.body}`);
        assert.deepEqual(pointers(refused), ['/data/id']);
      }
      const generated = await send('POST', '/v1/notes', {
        data: { type: 'notes', attributes: { label: 'server id' } },
      });
      assert.equal(generated.statusCode, 201, generated.body);
      assert.notEqual(generated.json().data.id, id.toLowerCase());
    });
  });
}
