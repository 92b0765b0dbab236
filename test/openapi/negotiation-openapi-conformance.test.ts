// The answers issue-driven checks found undocumented: 406 on every JSON:API route (a list, a record, a
// related list, /me, /admin/resources), ETag and 304 on a related list, and a bodiless request labelled
// with a parameterised JSON:API Content-Type (answered, not 415). Each answer must be one /openapi.json
// declares for its operation, with the body its schema describes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { ResponseConformance } from './response-conformance.ts';

const MODIFIED = 'application/vnd.api+json; ext=bulk';

for (const dialect of testDialects()) {
  describe(`406, related-list ETags and bodiless Content-Types as /openapi.json describes them (${dialect})`, () => {
    let t: TestApp;
    let editor: string;
    let conformance: ResponseConformance;
    let categoryId: string;
    let postId: string;

    before(async () => {
      t = await startTestApp(dialect);
      editor = await t.as('editor');
      conformance = new ResponseConformance((await t.request({ method: 'GET', url: '/openapi.json' })).json());
      categoryId = (
        await t.request({ method: 'POST', url: '/v1/categories', auth: editor, payload: { name: 'Docs' } })
      ).json().data.id;
      postId = (
        await t.request({
          method: 'POST',
          url: '/v1/posts',
          auth: editor,
          payload: { title: 'Documented', category_id: categoryId },
        })
      ).json().data.id;
    });
    after(() => t.close());

    it('answers and documents 406 on every operation that answers JSON:API', async () => {
      const cases: [string, string, string, string, Record<string, unknown>?][] = [
        ['GET', '/v1/posts', '/v1/posts', editor],
        ['POST', '/v1/posts', '/v1/posts', editor, { title: 'x' }],
        ['GET', '/v1/posts/{id}', `/v1/posts/${postId}`, editor],
        ['PATCH', '/v1/posts/{id}', `/v1/posts/${postId}`, editor, { title: 'y' }],
        ['PUT', '/v1/posts/{id}', `/v1/posts/${postId}`, editor, { title: 'y' }],
        ['DELETE', '/v1/posts/{id}', `/v1/posts/${postId}`, editor],
        ['GET', '/v1/categories/{id}/posts', `/v1/categories/${categoryId}/posts`, editor],
        ['GET', '/me', '/me', editor],
        ['GET', '/admin/resources', '/admin/resources', t.admin],
        ['GET', '/admin/resources/{name}', '/admin/resources/posts', t.admin],
        ['POST', '/admin/reload', '/admin/reload', t.admin],
      ];
      for (const [method, template, url, auth, payload] of cases) {
        const response = await t.request({
          method: method as 'GET',
          url,
          auth,
          headers: { accept: MODIFIED },
          ...(payload !== undefined ? { payload } : {}),
        });
        assert.equal(response.statusCode, 406, `${method} ${url}: ${response.body.slice(0, 200)}`);
        conformance.check(method, template, response);
      }
      // Nothing was changed or deleted by the refused writes.
      const post = await t.request({ method: 'GET', url: `/v1/posts/${postId}`, auth: editor });
      assert.equal(post.json().data.attributes.title, 'Documented');
    });

    it('answers a related list with an ETag and 304 to If-None-Match, both documented', async () => {
      const url = `/v1/categories/${categoryId}/posts`;
      const first = await t.request({ method: 'GET', url, auth: editor });
      conformance.check('GET', '/v1/categories/{id}/posts', first);
      const tag = first.headers.etag;
      assert.equal(typeof tag, 'string');
      const again = await t.request({ method: 'GET', url, auth: editor, headers: { 'if-none-match': String(tag) } });
      assert.equal(again.statusCode, 304);
      conformance.check('GET', '/v1/categories/{id}/posts', again);
    });

    it('answers a bodiless GET and DELETE labelled with a parameterised JSON:API type as usual', async () => {
      const headers = { 'content-type': 'application/vnd.api+json; charset=utf-8' };
      const list = await t.request({ method: 'GET', url: '/v1/posts', auth: editor, headers });
      assert.equal(list.statusCode, 200);
      conformance.check('GET', '/v1/posts', list);
      const created = (
        await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title: 'gone soon' } })
      ).json().data.id as string;
      const deleted = await t.request({ method: 'DELETE', url: `/v1/posts/${created}`, auth: editor, headers });
      assert.equal(deleted.statusCode, 204);
      conformance.check('DELETE', '/v1/posts/{id}', deleted);
    });
  });
}
