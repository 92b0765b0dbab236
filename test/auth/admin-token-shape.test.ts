// API keys skip the admin-token comparison on the hot path (generated admin tokens start `svcadm_`);
// an operator's configured admin token that happens to look like a key must still be recognised.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const KEY_SHAPED_ADMIN = 'svc_operator-chose-this-admin-token-0123';

describe('admin token shaped like an API key', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite', { adminToken: KEY_SHAPED_ADMIN });
  });
  after(async () => t.close());

  it('is still the admin token on resource and admin routes', async () => {
    const auth = `Bearer ${KEY_SHAPED_ADMIN}`;
    assert.equal((await t.request({ method: 'GET', url: '/v1/posts', auth })).statusCode, 200);
    assert.equal((await t.request({ method: 'GET', url: '/admin/users', auth })).statusCode, 200);
  });

  it('still refuses an unknown key with INVALID_API_KEY', async () => {
    const response = await t.request({
      method: 'GET',
      url: '/v1/posts',
      auth: 'Bearer svc_not-a-key-that-was-ever-issued',
    });
    assert.equal(response.statusCode, 401);
    assert.equal(response.json<{ errors: Array<{ code: string }> }>().errors[0]!.code, 'INVALID_API_KEY');
  });
});
