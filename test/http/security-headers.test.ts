// Responses carry headers that stop browsers from sniffing, framing or caching API answers.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

describe('security headers', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite');
  });
  after(() => t.close());

  it('are sent on success and error answers, with no-store when a credential was sent', async () => {
    const editor = await t.as('editor');
    for (const response of [
      await t.request({ method: 'GET', url: '/v1/posts', auth: editor }),
      await t.request({ method: 'GET', url: '/v1/nothing', auth: editor }),
    ]) {
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.equal(response.headers['x-frame-options'], 'DENY');
      assert.equal(response.headers['referrer-policy'], 'no-referrer');
      assert.equal(response.headers['cache-control'], 'no-store');
    }
    const open = await t.request({ method: 'GET', url: '/openapi.json' });
    assert.equal(open.headers['x-content-type-options'], 'nosniff');
    assert.equal(open.headers['cache-control'], undefined);
  });

  it('answer CORS only for configured origins', async () => {
    const allowed = await t.request({
      method: 'OPTIONS',
      url: '/v1/posts',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'GET' },
    });
    assert.equal(allowed.headers['access-control-allow-origin'], 'http://localhost:5173');
    const other = await t.request({
      method: 'OPTIONS',
      url: '/v1/posts',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'GET' },
    });
    assert.equal(other.headers['access-control-allow-origin'], undefined);
  });
});
