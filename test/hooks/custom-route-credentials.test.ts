// A custom route's handler gets the caller svc authenticated, never the credential it was sent: the
// Authorization header (a key's secret, or the admin token) is gone by the time the route's own code runs.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { hooksModule, startHooksApp, type HooksApp } from './hooks-app.ts';

const HOOKS = hooksModule(`{
  routes(app) {
    const echo = async (request) => ({
      meta: { authorization: request.headers.authorization ?? null, raw: request.raw.headers.authorization ?? null, seenByHook: request.seenByHook ?? null, caller: request.svc.caller },
    });
    // The route's own onRequest hook runs after svc's guards: it must not see the credential either.
    const peek = async (request) => { request.seenByHook = request.headers.authorization ?? 'none'; };
    app.get('/v1/echo-key', { auth: 'key', onRequest: peek }, echo);
    app.get('/admin/echo-admin', { auth: 'admin', onRequest: peek }, echo);
    app.get('/v1/echo-any', { auth: 'any', onRequest: peek }, echo);
  },
}`);

interface Echo {
  meta: {
    authorization: string | null;
    raw: string | null;
    seenByHook: string | null;
    caller: Record<string, unknown>;
  };
}

for (const dialect of testDialects()) {
  describe(`custom routes and credentials (${dialect})`, () => {
    let t: HooksApp;
    let user: string;
    before(async () => {
      t = await startHooksApp(dialect, HOOKS);
      user = await t.as('user', 'credential-user');
    });
    after(async () => {
      await t.close();
    });

    for (const [url, who] of [
      ['/v1/echo-key', 'key'],
      ['/v1/echo-any', 'key'],
      ['/v1/echo-any', 'admin'],
      ['/admin/echo-admin', 'admin'],
    ] as const) {
      it(`${url} with the ${who === 'key' ? "user's key" : 'admin token'}: the handler and the route's hook see the caller, not the credential`, async () => {
        const response = await t.request({ method: 'GET', url, auth: who === 'key' ? user : t.admin });
        assert.equal(response.statusCode, 200, response.body);
        const { meta } = JSON.parse(response.body) as Echo;
        assert.equal(meta.authorization, null);
        assert.equal(meta.raw, null);
        assert.equal(meta.seenByHook, 'none');
        if (who === 'key') assert.equal(meta.caller.userId, 'credential-user');
        else assert.deepEqual(meta.caller, { admin: true });
      });
    }
  });
}
