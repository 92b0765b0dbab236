// `url` fields take absolute http and https URLs only: any other scheme (javascript:, data:, ftp:) is
// 400 INVALID_RESOURCE_DATA pointing at the field, on create, PUT and PATCH, and the schema says so.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { compileResource } from '../../src/resources/compile-resource.ts';

const REFUSED = [
  'javascript:alert(1)',
  'JavaScript:alert(document.cookie)',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  'file:///etc/passwd',
  'ftp://example.com/file',
  'mailto:someone@example.com',
  '//example.com/no-scheme',
  'http:/one-slash',
  'http://',
  'not a url',
];

const ACCEPTED = [
  'https://example.com/a?b=c#d',
  'http://example.com',
  'HTTPS://EXAMPLE.COM/UPPER',
  'http://127.0.0.1:8080/x',
  'https://[2001:db8::1]/',
];

for (const dialect of testDialects()) {
  describe(`url fields (${dialect})`, () => {
    let t: TestApp;
    let editor: string;
    let postId: string;
    before(async () => {
      t = await startTestApp(dialect);
      editor = await t.as('editor');
      const created = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title: 'target' } });
      assert.equal(created.statusCode, 201, created.body);
      postId = created.json().data.id;
    });
    after(() => t.close());

    for (const value of REFUSED) {
      for (const [method, url] of [
        ['POST', '/v1/posts'],
        ['PUT', 'one'],
        ['PATCH', 'one'],
      ] as const) {
        it(`refuses ${JSON.stringify(value)} on ${method} with 400 INVALID_RESOURCE_DATA at /data/attributes/source`, async () => {
          const response = await t.request({
            method,
            url: url === 'one' ? `/v1/posts/${postId}` : url,
            auth: editor,
            payload: { title: 'x', source: value },
          });
          assert.equal(response.statusCode, 400, response.body);
          const errors = response.json<{ errors: { code: string; detail: string; source: { pointer: string } }[] }>()
            .errors;
          assert.ok(errors.length > 0);
          for (const error of errors)
            assert.deepEqual([error.code, error.source.pointer], ['INVALID_RESOURCE_DATA', '/data/attributes/source']);
        });
      }
    }

    it('says why a scheme is refused', async () => {
      const response = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: { title: 'x', source: 'javascript:alert(1)' },
      });
      assert.deepEqual(
        response.json().errors.map((e: { detail: string }) => e.detail),
        ["'source' must be an absolute http or https URL"],
      );
    });

    it('accepts absolute http and https URLs, the scheme in either case', async () => {
      for (const value of ACCEPTED) {
        const response = await t.request({
          method: 'PATCH',
          url: `/v1/posts/${postId}`,
          auth: editor,
          payload: { source: value },
        });
        assert.equal(response.statusCode, 200, `${value}: ${response.body}`);
        assert.equal(response.json().data.attributes.source, value);
      }
    });

    it('shows the scheme rule in the JSON Schema', async () => {
      const response = await t.request({ method: 'GET', url: '/v1/posts/schema', auth: editor });
      assert.equal(response.statusCode, 200);
      const source = response.json().properties.source;
      assert.equal(source.format, 'uri');
      const pattern = new RegExp(source.pattern);
      assert.ok(pattern.test('https://example.com/'));
      assert.ok(!pattern.test('javascript:alert(1)'));
    });
  });
}

describe('url fields with a pattern of their own', () => {
  it('apply both the scheme rule and the definition pattern', () => {
    const field = compileResource('links', { fields: { u: { type: 'url', pattern: '\\.example\\.com/' } } }).fields.get(
      'u',
    )!;
    assert.deepEqual(field.validate('https://a.example.com/x'), []);
    assert.deepEqual(field.validate('javascript://a.example.com/'), ['must be an absolute http or https URL']);
    assert.equal(field.validate('https://other.org/').length, 1);
  });
});
