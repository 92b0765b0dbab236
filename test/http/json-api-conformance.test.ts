// Every kind of document the API answers with validates against the official JSON:API 1.0 schema, goes
// out as exactly `application/vnd.api+json`, and content negotiation follows JSON:API 1.0 (415, 406).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import Ajv from 'ajv';
import draft6 from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };
import type { InjectOptions } from 'fastify';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

const require = createRequire(import.meta.url);
// The jsonapi-validator package ships the schema published by jsonapi.org (draft-06).
const jsonApiSchema = require('jsonapi-validator/lib/schema.json') as Record<string, unknown>;

const ajv = new Ajv.default({ allErrors: true, strict: false, validateFormats: false });
ajv.addMetaSchema(draft6);
const validate = ajv.compile(jsonApiSchema);

describe('JSON:API 1.0 conformance', () => {
  let t: TestApp;
  let editor: string;
  let postId: string;
  let commentId: string;
  before(async () => {
    t = await startTestApp('sqlite');
    editor = await t.as('editor');
    const category = await t.request({
      method: 'POST',
      url: '/v1/categories',
      auth: editor,
      payload: { name: 'Conformance' },
    });
    const created = await t.request({
      method: 'POST',
      url: '/v1/posts',
      auth: editor,
      payload: { title: 'Conform', tags: ['x'], category_id: category.json().data.id },
    });
    postId = created.json().data.id;
    const comment = await t.request({
      method: 'POST',
      url: '/v1/comments',
      auth: editor,
      payload: { post_id: postId, body: 'c' },
    });
    commentId = comment.json().data.id;
  });
  after(() => t.close());

  it('rejects documents that break JSON:API (the schema is really applied)', () => {
    assert.equal(validate({ data: { id: 1, attributes: {} } }), false);
    assert.equal(validate({ errors: [{ status: 400 }] }), false);
    assert.equal(validate({ data: [], errors: [] }), false);
  });

  const cases: [
    string,
    () => { method: 'GET' | 'POST' | 'PATCH' | 'PUT'; url: string; payload?: object; auth?: boolean },
  ][] = [
    ['a created record', () => ({ method: 'POST', url: '/v1/posts', payload: { title: 'Another' } })],
    ['a fetched record', () => ({ method: 'GET', url: `/v1/posts/${postId}` })],
    ['a list with links and meta', () => ({ method: 'GET', url: '/v1/posts?_limit=1&_offset=1' })],
    ['an empty list', () => ({ method: 'GET', url: '/v1/posts?title=none' })],
    [
      'a record with relationships and included records',
      () => ({ method: 'GET', url: `/v1/comments/${commentId}?include=post.category` }),
    ],
    [
      'a compound list with sparse fieldsets',
      () => ({ method: 'GET', url: '/v1/comments?include=post&fields[posts]=title,category' }),
    ],
    [
      'a record with a to-many relationship included',
      () => ({ method: 'GET', url: `/v1/posts/${postId}?include=comments,category` }),
    ],
    ['the to-many side of a relation', () => ({ method: 'GET', url: `/v1/posts/${postId}/comments?include=post` })],
    ['a patched record', () => ({ method: 'PATCH', url: `/v1/posts/${postId}`, payload: { body: 'b' } })],
    ['a validation error document', () => ({ method: 'POST', url: '/v1/posts', payload: { nope: 1, views: 'x' } })],
    ['a query error document', () => ({ method: 'GET', url: '/v1/posts?_limit=0&x=1' })],
    ['a not-found error document', () => ({ method: 'GET', url: '/v1/missing' })],
    ['an unauthorized error document', () => ({ method: 'GET', url: '/v1/posts', auth: false })],
  ];
  for (const [name, make] of cases) {
    it(`validates ${name}`, async () => {
      const { auth, ...request } = make();
      const response = await t.request({ ...request, ...(auth === false ? {} : { auth: editor }) });
      // JSON:API allows no media type parameters, not even charset.
      assert.equal(response.headers['content-type'], 'application/vnd.api+json');
      const document = response.json();
      assert.ok(validate(document), `${response.body}\n${JSON.stringify(validate.errors, null, 2)}`);
    });
  }
});

for (const dialect of testDialects()) {
  describe(`JSON:API 1.0 content negotiation on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    let postId: string;
    let categoryId: string;
    before(async () => {
      t = await startTestApp(dialect);
      editor = await t.as('editor');
      categoryId = (
        await t.request({ method: 'POST', url: '/v1/categories', auth: editor, payload: { name: 'Negotiation' } })
      ).json().data.id;
      const created = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: { title: 'Negotiated', category_id: categoryId },
      });
      postId = created.json().data.id;
    });
    after(() => t.close());

    it('labels every JSON:API answer, errors included, exactly application/vnd.api+json', async () => {
      const admin = t.admin;
      const cases: [string, InjectOptions & { auth?: string }, number][] = [
        ['a list', { method: 'GET', url: '/v1/posts', auth: editor }, 200],
        ['a record', { method: 'GET', url: `/v1/posts/${postId}`, auth: editor }, 200],
        ['a created record', { method: 'POST', url: '/v1/posts', auth: editor, payload: { title: 'x' } }, 201],
        ['an admin list', { method: 'GET', url: '/admin/users', auth: admin }, 200],
        [
          'an admin webhook',
          {
            method: 'POST',
            url: '/admin/webhooks',
            auth: admin,
            payload: { name: 'h', url: 'https://hooks.example.com/in', eventPattern: '*' },
          },
          201,
        ],
        ['a validation error', { method: 'POST', url: '/v1/posts', auth: editor, payload: { nope: 1 } }, 400],
        [
          'a syntax error',
          {
            method: 'POST',
            url: '/v1/posts',
            auth: editor,
            payload: '{',
            headers: { 'content-type': 'application/json' },
          },
          400,
        ],
        ['a 401', { method: 'GET', url: '/v1/posts' }, 401],
        ['a 403', { method: 'POST', url: '/v1/posts', auth: admin, payload: { title: 'x' } }, 403],
        ['an unknown resource', { method: 'GET', url: '/v1/missing', auth: editor }, 404],
        ['an unknown route', { method: 'GET', url: '/nowhere' }, 404],
        ['an unknown /auth route', { method: 'GET', url: '/auth/nowhere' }, 404],
        ['a path that does not decode (framework error)', { method: 'GET', url: '/v1/%E0%A4%A', auth: editor }, 404],
        ['a 405', { method: 'PUT', url: '/v1/posts', auth: editor, payload: {} }, 405],
        [
          'a 413',
          {
            method: 'POST',
            url: '/v1/posts',
            auth: editor,
            payload: `{"title":"${'x'.repeat(2 * 1024 * 1024)}"}`,
            headers: { 'content-type': 'application/json' },
          },
          413,
        ],
        [
          'a 415',
          { method: 'POST', url: '/v1/posts', auth: editor, payload: 'x', headers: { 'content-type': 'text/plain' } },
          415,
        ],
        [
          'a 406',
          { method: 'GET', url: '/v1/posts', auth: editor, headers: { accept: 'application/vnd.api+json; ext=bulk' } },
          406,
        ],
        [
          'an error from /token',
          { method: 'POST', url: '/token', payload: { email: 'nobody@example.com', password: 'wrong password' } },
          401,
        ],
      ];
      for (const [name, options, status] of cases) {
        const response = await t.request(options);
        assert.equal(response.statusCode, status, `${name}: ${response.body.slice(0, 300)}`);
        assert.equal(response.headers['content-type'], 'application/vnd.api+json', name);
        assert.ok(validate(response.json()), `${name}: ${response.body.slice(0, 300)}`);
      }
    });

    it('leaves other media types as they were: JSON Schema, OpenAPI, /token, /healthz, /metrics, /auth', async () => {
      const cases: [InjectOptions & { auth?: string }, RegExp][] = [
        [{ method: 'GET', url: '/v1/posts/schema', auth: editor }, /^application\/schema\+json/],
        [{ method: 'GET', url: '/openapi.json' }, /^application\/json/],
        [{ method: 'GET', url: '/openapi.yaml' }, /^application\/yaml/],
        [{ method: 'GET', url: '/healthz' }, /^application\/json/],
        [{ method: 'GET', url: '/metrics', auth: t.admin }, /^text\/plain/],
        [
          {
            method: 'POST',
            url: '/auth/sign-up/email',
            payload: { name: 'N', email: `n-${dialect}@example.com`, password: 'correct horse battery' },
          },
          /^application\/json/,
        ],
      ];
      for (const [options, type] of cases) {
        const response = await t.request(options);
        assert.ok(response.statusCode < 300, `${options.url}: ${response.statusCode} ${response.body.slice(0, 200)}`);
        assert.match(String(response.headers['content-type']), type, String(options.url));
      }
      const token = await t.request({
        method: 'POST',
        url: '/token',
        payload: { email: `n-${dialect}@example.com`, password: 'correct horse battery' },
      });
      assert.equal(token.statusCode, 201, token.body);
      assert.match(String(token.headers['content-type']), /^application\/json/);
    });

    it('answers 415 UNSUPPORTED_MEDIA_TYPE for a JSON:API Content-Type with any media type parameter', async () => {
      for (const type of [
        'application/vnd.api+json; charset=utf-8',
        'application/vnd.api+json;ext=bulk',
        'APPLICATION/VND.API+JSON ; profile="https://example.com/p"',
      ]) {
        for (const [method, url, auth] of [
          ['POST', '/v1/posts', editor],
          ['PATCH', `/v1/posts/${postId}`, editor],
          ['POST', '/admin/webhooks', t.admin],
          ['POST', '/token', undefined],
        ] as const) {
          const response = await t.request({
            method,
            url,
            ...(auth ? { auth } : {}),
            payload: '{"title":"x"}',
            headers: { 'content-type': type },
          });
          assert.equal(response.statusCode, 415, `${method} ${url} with ${type}: ${response.body}`);
          assert.equal(response.json().errors[0].code, 'UNSUPPORTED_MEDIA_TYPE');
        }
      }
      // Without parameters, and other types with parameters, are taken.
      for (const type of ['application/vnd.api+json', 'application/json; charset=utf-8']) {
        const response = await t.request({
          method: 'POST',
          url: '/v1/posts',
          auth: editor,
          payload: '{"title":"x"}',
          headers: { 'content-type': type },
        });
        assert.equal(response.statusCode, 201, `${type}: ${response.body}`);
      }
    });

    it('ignores the Content-Type of a request without a body (a GET or DELETE some clients label anyway)', async () => {
      const type = 'application/vnd.api+json; charset=utf-8';
      for (const [url, auth] of [
        ['/v1/posts', editor],
        [`/v1/posts/${postId}`, editor],
        ['/me', editor],
        ['/admin/users', t.admin],
      ] as const) {
        const response = await t.request({ method: 'GET', url, auth, headers: { 'content-type': type } });
        assert.equal(response.statusCode, 200, `${url}: ${response.body.slice(0, 200)}`);
      }
      const created = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: { title: 'to delete' },
      });
      const id = created.json().data.id as string;
      const deleted = await t.request({
        method: 'DELETE',
        url: `/v1/posts/${id}`,
        auth: editor,
        headers: { 'content-type': type },
      });
      assert.equal(deleted.statusCode, 204, deleted.body);
      // With a body, the same Content-Type is still 415, whatever the method.
      const withBody = await t.request({
        method: 'DELETE',
        url: `/v1/posts/${postId}`,
        auth: editor,
        payload: '{}',
        headers: { 'content-type': type },
      });
      assert.equal(withBody.statusCode, 415);
    });

    it('answers 406 NOT_ACCEPTABLE when every JSON:API instance in Accept carries media type parameters', async () => {
      const cases: [string, number][] = [
        ['application/vnd.api+json; ext=bulk', 406],
        ['application/vnd.api+json;charset=utf-8', 406],
        ['application/vnd.api+json; ext=a, application/vnd.api+json; profile=b;q=0.5', 406],
        // JSON:API 1.0: the rule holds even when a wildcard would accept anything.
        ['application/vnd.api+json; ext=a, */*', 406],
        ['application/vnd.api+json; ext=a, application/vnd.api+json', 200],
        ['application/vnd.api+json', 200],
        ['Application/Vnd.Api+Json', 200],
        ['application/vnd.api+json;q=0.9', 200],
        ['application/json', 200],
        ['*/*', 200],
        ['text/html, application/xhtml+xml;q=0.9', 200],
      ];
      for (const [accept, status] of cases) {
        for (const [url, auth] of [
          ['/v1/posts', editor],
          [`/v1/posts/${postId}`, editor],
          [`/v1/categories/${categoryId}/posts`, editor],
          ['/me', editor],
          ['/admin/users', t.admin],
          ['/admin/webhooks', t.admin],
          ['/admin/resources', t.admin],
          ['/admin/resources/posts', t.admin],
        ] as const) {
          const response = await t.request({ method: 'GET', url, auth, headers: { accept } });
          assert.equal(response.statusCode, status, `${url} with Accept: ${accept}: ${response.body.slice(0, 200)}`);
          if (status === 406) assert.equal(response.json().errors[0].code, 'NOT_ACCEPTABLE');
        }
      }
      // A write is refused before anything is created.
      const before = await t.request({ method: 'GET', url: '/v1/posts', auth: editor });
      const write = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: { title: 'x' },
        headers: { accept: 'application/vnd.api+json; ext=bulk' },
      });
      assert.equal(write.statusCode, 406);
      const afterwards = await t.request({ method: 'GET', url: '/v1/posts', auth: editor });
      assert.equal(afterwards.json().meta.total, before.json().meta.total);
    });

    it('keeps Accept out of routes that do not answer JSON:API, and asks for credentials first', async () => {
      const accept = 'application/vnd.api+json; ext=bulk';
      for (const [url, auth] of [
        ['/v1/posts/schema', editor],
        ['/healthz', undefined],
        ['/openapi.json', undefined],
      ] as const) {
        const response = await t.request({ method: 'GET', url, ...(auth ? { auth } : {}), headers: { accept } });
        assert.equal(response.statusCode, 200, `${url}: ${response.body.slice(0, 200)}`);
      }
      const anonymous = await t.request({ method: 'GET', url: '/v1/posts', headers: { accept } });
      assert.equal(anonymous.statusCode, 401);
    });
  });
}
