// CORS as configured: a preflight from an allowed origin allows every method a route has and the
// headers clients send; responses expose the headers clients read; an origin not configured gets no
// CORS header at all, preflight or not.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

const ALLOWED = 'https://app.example';
const CLIENT_HEADERS = [
  'Authorization',
  'Content-Type',
  'If-Match',
  'If-None-Match',
  'Idempotency-Key',
  'Last-Event-ID',
  'X-Service-Role',
];
const EXPOSED = [
  'ETag',
  'Idempotency-Replayed',
  'Location',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'X-Request-Id',
];

const list = (value: unknown) =>
  new Set(
    String(value ?? '')
      .split(',')
      .map((item) => item.trim().toLowerCase())
      .filter((item) => item !== ''),
  );
const corsHeaders = (headers: Record<string, unknown>) =>
  Object.keys(headers).filter((name) => name.startsWith('access-control-'));

for (const dialect of testDialects()) {
  describe(`CORS (${dialect})`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(dialect, {
        server: {
          port: 0,
          host: '127.0.0.1',
          cors: { origins: [ALLOWED, 'http://localhost:5173'] },
          bodyLimitBytes: 1048576,
        },
      });
    });

    after(async () => {
      await t.close();
    });

    for (const [method, url] of [
      ['GET', '/v1/posts'],
      ['POST', '/v1/posts'],
      ['PUT', '/v1/posts/0190a0c0-0000-7000-8000-000000000000'],
      ['PATCH', '/v1/posts/0190a0c0-0000-7000-8000-000000000000'],
      ['DELETE', '/v1/posts/0190a0c0-0000-7000-8000-000000000000'],
    ] as const) {
      it(`allows ${method} and the clients' headers in the preflight of an allowed origin`, async () => {
        const response = await t.request({
          method: 'OPTIONS',
          url,
          headers: {
            origin: ALLOWED,
            'access-control-request-method': method,
            'access-control-request-headers': CLIENT_HEADERS.join(',').toLowerCase(),
          },
        });
        assert.equal(response.statusCode, 204);
        assert.equal(response.headers['access-control-allow-origin'], ALLOWED);
        assert.equal(response.headers['access-control-allow-credentials'], 'true');
        assert.ok(
          list(response.headers['access-control-allow-methods']).has(method.toLowerCase()),
          String(response.headers['access-control-allow-methods']),
        );
        const allowedHeaders = list(response.headers['access-control-allow-headers']);
        for (const header of CLIENT_HEADERS)
          assert.ok(allowedHeaders.has(header.toLowerCase()), `${header} not allowed`);
        assert.match(String(response.headers.vary), /origin/i);
      });
    }

    it('exposes the headers clients read on an allowed origin’s requests', async () => {
      const response = await t.request({
        method: 'POST',
        url: '/v1/categories',
        auth: await t.as('editor'),
        headers: { origin: ALLOWED },
        payload: { name: 'cors' },
      });
      assert.equal(response.statusCode, 201);
      assert.equal(response.headers['access-control-allow-origin'], ALLOWED);
      const exposed = list(response.headers['access-control-expose-headers']);
      for (const header of EXPOSED) assert.ok(exposed.has(header.toLowerCase()), `${header} not exposed`);
    });

    it('gives an origin not configured no CORS header, in the preflight or the request', async () => {
      const preflight = await t.request({
        method: 'OPTIONS',
        url: '/v1/posts',
        headers: {
          origin: 'https://evil.example',
          'access-control-request-method': 'DELETE',
          'access-control-request-headers': 'authorization',
        },
      });
      assert.deepEqual(corsHeaders(preflight.headers), []);
      assert.notEqual(preflight.statusCode, 204);
      const request = await t.request({
        method: 'GET',
        url: '/v1/posts',
        auth: await t.as('editor'),
        headers: { origin: 'https://evil.example' },
      });
      assert.equal(request.statusCode, 200);
      assert.deepEqual(corsHeaders(request.headers), []);
    });
  });
}
