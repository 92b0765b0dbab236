// Custom routes of a hooks file, through HTTP on SQLite and PostgreSQL: svc's authentication per
// route (key, admin, any, public) with the key's rate-limit headers, the caller and the record
// accessor on the request, error documents, request ids, CORS, the OpenAPI entry, and the refusal of
// a route that would shadow a generated one.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { testDialects } from '../helpers/test-databases.ts';
import { hooksModule, startHooksApp, type HooksApp } from './hooks-app.ts';

const HOOKS = hooksModule(`{
  articles: {
    beforeCreate({ values }) { values.slug ??= values.title.toLowerCase().replace(/[^a-z0-9]+/g, '-'); },
  },
  routes(app, { records }) {
    app.get('/v1/articles/:id/summary', {
      auth: 'key',
      schema: {
        summary: 'Word count of an article',
        tags: ['Articles'],
        params: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] },
        response: { 200: { type: 'object', properties: { data: { type: 'object', additionalProperties: true } } } },
      },
    }, async (request) => {
      const article = await request.svc.records('articles').get(request.params.id);
      return { data: { type: 'summaries', id: article.id, attributes: { words: article.title.split(' ').length, caller: request.svc.caller } } };
    });
    app.post('/v1/articles/:id/restock', { auth: 'key' }, async (request, reply) => {
      const product = await request.svc.records('products').create({ name: 'for ' + request.params.id, stock: 1 });
      return reply.code(201).send({ data: { type: 'products', id: product.id, attributes: { slug: product.slug ?? null } } });
    });
    app.get('/admin/article-count', { auth: 'admin' }, async (request) => {
      const all = await request.svc.records('articles').list({ _limit: 100 });
      return { meta: { count: all.length, caller: request.svc.caller } };
    });
    app.get('/public/ping', { auth: 'public' }, async (request) => {
      const list = await request.svc.records('articles', { as: 'system' }).list('_limit=1');
      return { meta: { caller: request.svc.caller, some: list.length } };
    });
    app.get('/v1/articles/:id/refuse', { auth: 'any' }, async () => {
      throw new ApiError(418, 'NOT_A_TEAPOT', 'Refused by the route', { parameter: 'id' });
    });
    app.post('/v1/articles/:id/rate', {
      auth: 'key',
      schema: {
        params: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } },
        querystring: { type: 'object', properties: { notify: { type: 'boolean' } } },
        body: { type: 'object', required: ['stars'], additionalProperties: false, properties: { stars: { type: 'integer', minimum: 1, maximum: 5 } } },
      },
    }, async (request) => ({ meta: { stars: request.body.stars } }));
    app.get('/v1/articles/:id/crash', { auth: 'key' }, async () => {
      throw new Error('route crash secret');
    });
  },
}`);

for (const dialect of testDialects()) {
  describe(`custom routes (${dialect})`, () => {
    let t: HooksApp;
    let user: string;
    let viewer: string;
    let articleId: string;
    before(async () => {
      t = await startHooksApp(dialect, HOOKS);
      user = await t.as('user', 'route-user');
      viewer = await t.as('viewer', 'route-viewer');
      const created = await t.request({
        method: 'POST',
        url: '/v1/articles',
        auth: user,
        payload: { title: 'Three word title' },
      });
      articleId = created.json().data.id;
    });
    after(async () => {
      await t.close();
    });

    it('answers a key route as the caller, with the record accessor, request id, CORS and rate-limit headers', async () => {
      const response = await t.request({
        method: 'GET',
        url: `/v1/articles/${articleId}/summary`,
        auth: user,
        headers: { origin: 'http://localhost:5173', 'x-request-id': 'route-req-1' },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json().data.attributes, {
        words: 3,
        caller: { userId: 'route-user', role: 'user', keyId: response.json().data.attributes.caller.keyId },
      });
      assert.match(response.json().data.attributes.caller.keyId, /.+/);
      assert.equal(response.headers['x-request-id'], 'route-req-1');
      assert.equal(response.headers['access-control-allow-origin'], 'http://localhost:5173');
      assert.ok(response.headers['ratelimit-limit'], 'the key rate limit applies');
    });

    it('refuses a key route without a key (401), with an unknown key (401) and with the admin token (403)', async () => {
      const none = await t.request({ method: 'GET', url: `/v1/articles/${articleId}/summary` });
      assert.equal(none.statusCode, 401);
      assert.equal(none.json().errors[0].code, 'UNAUTHORIZED');
      const unknown = await t.request({
        method: 'GET',
        url: `/v1/articles/${articleId}/summary`,
        auth: 'Bearer svc_not_a_key',
      });
      assert.equal(unknown.statusCode, 401);
      const admin = await t.request({ method: 'GET', url: `/v1/articles/${articleId}/summary`, auth: t.admin });
      assert.equal(admin.statusCode, 403);
      assert.equal(admin.json().errors[0].code, 'ADMIN_TOKEN_NOT_ALLOWED');
    });

    it("the accessor acts with the caller's permissions: a read they may not make is 404, a write 403", async () => {
      const missing = await t.request({
        method: 'GET',
        url: '/v1/articles/0190a8c4-0000-7000-8000-000000000000/summary',
        auth: user,
      });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().errors[0].code, 'RESOURCE_NOT_FOUND');
      const refused = await t.request({ method: 'POST', url: `/v1/articles/${articleId}/restock`, auth: viewer });
      assert.equal(refused.statusCode, 403, refused.body);
      const allowed = await t.request({ method: 'POST', url: `/v1/articles/${articleId}/restock`, auth: user });
      assert.equal(allowed.statusCode, 201, allowed.body);
    });

    it('an admin route takes only the admin token; a public one anyone, with no caller', async () => {
      assert.equal((await t.request({ method: 'GET', url: '/admin/article-count', auth: user })).statusCode, 403);
      const admin = await t.request({ method: 'GET', url: '/admin/article-count', auth: t.admin });
      assert.equal(admin.statusCode, 200, admin.body);
      assert.deepEqual(admin.json().meta.caller, { admin: true });
      assert.ok(admin.json().meta.count >= 1);
      const open = await t.request({ method: 'GET', url: '/public/ping' });
      assert.equal(open.statusCode, 200, open.body);
      assert.deepEqual(open.json().meta, { caller: null, some: 1 });
    });

    it("answers a route's refusal as a JSON:API error, and an exception as 500 without its message", async () => {
      const refused = await t.request({ method: 'GET', url: `/v1/articles/${articleId}/refuse`, auth: t.admin });
      assert.equal(refused.statusCode, 418);
      assert.deepEqual(refused.json().errors, [
        {
          status: '418',
          code: 'NOT_A_TEAPOT',
          title: 'Refused',
          detail: 'Refused by the route',
          source: { parameter: 'id' },
        },
      ]);
      const crash = await t.request({ method: 'GET', url: `/v1/articles/${articleId}/crash`, auth: user });
      assert.equal(crash.statusCode, 500);
      assert.equal(crash.json().errors[0].code, 'INTERNAL_ERROR');
      assert.doesNotMatch(crash.body, /route crash secret/);
    });

    it("a route's schema refuses bad input as JSON:API errors naming the member or parameter, after authentication", async () => {
      const rate = (url: string, payload: unknown, auth: string | undefined = user) =>
        t.request({ method: 'POST', url, payload: payload as Record<string, unknown>, auth });
      const ok = await rate(`/v1/articles/${articleId}/rate?notify=true`, { stars: 4 });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(ok.json().meta, { stars: 4 });
      const tooMany = await rate(`/v1/articles/${articleId}/rate`, { stars: 9 });
      assert.equal(tooMany.statusCode, 400);
      assert.equal(tooMany.json().errors[0].code, 'INVALID_RESOURCE_DATA');
      assert.equal(tooMany.json().errors[0].source.pointer, '/stars');
      const missing = await rate(`/v1/articles/${articleId}/rate`, {});
      assert.equal(missing.statusCode, 400);
      assert.equal(missing.json().errors[0].source.pointer, '/stars');
      const query = await rate(`/v1/articles/${articleId}/rate?notify=perhaps`, { stars: 1 });
      assert.equal(query.statusCode, 400);
      assert.deepEqual(
        [query.json().errors[0].code, query.json().errors[0].source.parameter],
        ['INVALID_QUERY_PARAMS', 'notify'],
      );
      const param = await rate('/v1/articles/not-an-id/rate', { stars: 1 });
      assert.equal(param.statusCode, 400);
      assert.equal(param.json().errors[0].source.parameter, 'id');
      const anonymous = await rate(`/v1/articles/${articleId}/rate`, { stars: 9 }, '');
      assert.equal(anonymous.statusCode, 401);
    });

    it('a route with a schema is in /openapi.json (a valid document), one without is not', async () => {
      const response = await t.request({ method: 'GET', url: '/openapi.json' });
      const document = response.json();
      const operation = document.paths['/v1/articles/{id}/summary']?.get;
      assert.ok(operation, 'the summary route is described');
      assert.equal(operation.summary, 'Word count of an article');
      assert.deepEqual(operation.security, [{ bearer: [] }]);
      assert.equal(operation.parameters[0].name, 'id');
      assert.equal(document.paths['/v1/articles/{id}/restock'], undefined);
      assert.deepEqual(Object.keys(document.paths['/v1/articles/{id}/rate'].post.requestBody.content), [
        'application/json',
      ]);
      const result = await new Validator().validate(document);
      assert.equal(result.valid, true, JSON.stringify(result.errors));
    });
  });
}

describe('a custom route that would shadow a generated one', () => {
  for (const [route, generated] of [
    ["app.get('/v1/articles/:id', {}, async () => ({}))", 'GET /v1/:resource/:id'],
    ["app.post('/v1/orders', { auth: 'key' }, async () => ({}))", 'POST /v1/:resource'],
    ["app.get('/healthz', { auth: 'public' }, async () => ({}))", 'GET /healthz'],
    ["app.get('/v1/:anything', { auth: 'public' }, async () => ({}))", 'GET /v1/stream'],
  ] as const) {
    it(`refuses ${route.split(',')[0]!.replace('app.', '')}) at start, naming ${generated}`, async () => {
      await assert.rejects(startHooksApp('sqlite', hooksModule(`{ routes(app) { ${route}; } }`)), (error: Error) => {
        assert.match(error.message, /Custom route .* would answer where the generated route/);
        assert.ok(error.message.includes(generated.split(' ')[0]!), error.message);
        return true;
      });
    });
  }

  it('refuses an unknown auth mode at start', async () => {
    await assert.rejects(
      startHooksApp('sqlite', hooksModule(`{ routes(app) { app.get('/x', { auth: 'nobody' }, async () => ({})); } }`)),
      /auth must be 'key', 'admin', 'any' or 'public'/,
    );
  });
});
