// Every kind of document the API answers with validates against the official JSON:API 1.0 schema.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import Ajv from 'ajv';
import draft6 from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

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
  before(async () => {
    t = await startTestApp('sqlite');
    editor = await t.as('editor');
    const created = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title: 'Conform', tags: ['x'] } });
    postId = created.json().data.id;
  });
  after(() => t.close());

  it('rejects documents that break JSON:API (the schema is really applied)', () => {
    assert.equal(validate({ data: { id: 1, attributes: {} } }), false);
    assert.equal(validate({ errors: [{ status: 400 }] }), false);
    assert.equal(validate({ data: [], errors: [] }), false);
  });

  const cases: [string, () => { method: 'GET' | 'POST' | 'PATCH' | 'PUT'; url: string; payload?: object; auth?: boolean }][] = [
    ['a created record', () => ({ method: 'POST', url: '/v1/posts', payload: { title: 'Another' } })],
    ['a fetched record', () => ({ method: 'GET', url: `/v1/posts/${postId}` })],
    ['a list with links and meta', () => ({ method: 'GET', url: '/v1/posts?_limit=1&_offset=1' })],
    ['an empty list', () => ({ method: 'GET', url: '/v1/posts?title=none' })],
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
      assert.match(String(response.headers['content-type']), /^application\/vnd\.api\+json/);
      const document = response.json();
      assert.ok(validate(document), `${response.body}\n${JSON.stringify(validate.errors, null, 2)}`);
    });
  }
});
