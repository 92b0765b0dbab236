// GET /admin/roles: the roles a user may be given (the `roles:` list, the roles named in permissions and
// auth.defaultRole), so the console's role picker offers only these; a reload that adds a role shows at once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

for (const dialect of testDialects()) {
  describe(`GET /admin/roles (${dialect})`, () => {
    let t: TestApp;
    let declared: TestApp;
    before(async () => {
      t = await startTestApp(dialect);
      declared = await startTestApp(dialect, { roles: ['auditor', 'editor', 'user'] });
    });
    after(async () => {
      await t.close();
      await declared.close();
    });

    it('lists the roles named in permissions and the default role, sorted, the default marked', async () => {
      const response = await t.request({ method: 'GET', url: '/admin/roles', auth: t.admin });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['content-type'], 'application/vnd.api+json');
      assert.deepEqual(response.json(), {
        data: [
          { type: 'roles', id: 'editor', attributes: { default: false } },
          { type: 'roles', id: 'user', attributes: { default: true } },
        ],
        meta: { total: 2 },
        links: { self: '/admin/roles' },
      });
    });

    it('includes a role the `roles:` list declares that no permission names, and those are the ones a user may be given', async () => {
      const roles = (await declared.request({ method: 'GET', url: '/admin/roles', auth: declared.admin }))
        .json()
        .data.map((r: { id: string }) => r.id);
      assert.deepEqual(roles, ['auditor', 'editor', 'user']);
      const key = await declared.as('user', 'promoted');
      const userId = (await declared.request({ method: 'GET', url: '/me', auth: key })).json().data.id as string;
      for (const role of roles) {
        const changed = await declared.request({
          method: 'PATCH',
          url: `/admin/users/${userId}`,
          auth: declared.admin,
          payload: { primaryRole: role },
        });
        assert.equal(changed.statusCode, 200, changed.body);
      }
      const refused = await declared.request({
        method: 'PATCH',
        url: `/admin/users/${userId}`,
        auth: declared.admin,
        payload: { primaryRole: 'owner' },
      });
      assert.equal(refused.statusCode, 400);
    });

    it('is for the admin token only, and refuses query parameters', async () => {
      assert.equal((await t.request({ method: 'GET', url: '/admin/roles' })).statusCode, 401);
      const asKey = await t.request({ method: 'GET', url: '/admin/roles', auth: await t.as('editor') });
      assert.equal(asKey.statusCode, 403);
      assert.equal(asKey.json().errors[0].code, 'FORBIDDEN');
      const query = await t.request({ method: 'GET', url: '/admin/roles?role=editor', auth: t.admin });
      assert.equal(query.statusCode, 400);
      assert.equal(query.json().errors[0].code, 'INVALID_QUERY_PARAMS');
      assert.equal(query.json().errors[0].source.parameter, 'role');
    });
  });
}
