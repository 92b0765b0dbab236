// GET /me: a key holder finds out who they are, which role is in force, and what is left of the key's
// limits, without copying ids from the CLI's output.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

for (const dialect of testDialects()) {
  describe(`GET /me (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect);
    });
    after(() => t.close());

    it('answers 401 without a key', async () => {
      const response = await t.request({ method: 'GET', url: '/me' });
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().errors[0].code, 'UNAUTHORIZED');
    });

    it('names the user, the role in force, and the key with its limits', async () => {
      const auth = await t.as('editor');
      const response = await t.request({ method: 'GET', url: '/me', auth });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'application/vnd.api+json');
      const { data } = response.json();
      assert.equal(data.type, 'me');
      const me = data.attributes;
      assert.equal(me.kind, 'key');
      assert.equal(data.id, me.userId);
      assert.equal(me.role, 'editor');
      assert.equal(me.primaryRole, 'editor');
      assert.deepEqual(me.allowedRoles, []);
      assert.match(me.email, /@/);
      assert.equal(typeof me.key.id, 'string');
      assert.equal(me.key.rateLimit.max, t.ctx.config.apiKeys.rateLimit.max);
      assert.equal(me.key.rateLimit.timeWindow, t.ctx.config.apiKeys.rateLimit.timeWindow);
      assert.equal(me.key.rateLimit.remaining, Number(response.headers['ratelimit-remaining']));
      assert.equal(JSON.stringify(data).includes(auth.replace('Bearer ', '')), false, 'the key itself is never shown');
    });

    it('shows the role a request switched to with X-Service-Role', async () => {
      const auth = await t.as('editor', 'switcher');
      const before = (await t.request({ method: 'GET', url: '/me', auth })).json().data;
      const patched = await t.request({ method: 'PATCH', url: `/admin/users/${before.id}`, auth: t.admin, payload: { allowedRoles: ['user'] } });
      assert.equal(patched.statusCode, 200, patched.body);
      const switched = await t.request({ method: 'GET', url: '/me', auth, headers: { 'x-service-role': 'user' } });
      assert.equal(switched.statusCode, 200, switched.body);
      assert.equal(switched.json().data.attributes.role, 'user');
      assert.equal(switched.json().data.attributes.primaryRole, 'editor');
      assert.deepEqual(switched.json().data.attributes.allowedRoles, ['user']);
    });

    it('answers the admin token as the administrator', async () => {
      const response = await t.request({ method: 'GET', url: '/me', auth: t.admin });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json().data, { type: 'me', id: 'admin', attributes: { kind: 'admin' } });
    });
  });
}
