// Roles a user may have are the roles the configuration defines: the admin API and the CLI refuse any
// other, a role removed from the configuration grants nothing, and X-Service-Role cannot name one.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects, createTestDatabase, type TestDatabase } from '../helpers/test-databases.ts';
import { testConfig, BLOG_RESOURCES, TEST_ADMIN_TOKEN } from '../helpers/test-config.ts';
import { runUsersCommand } from '../../src/cli/cli-accounts.ts';
import type { CliValues } from '../../src/cli/cli-values.ts';
import { createTestUser, TEST_PASSWORD } from '../helpers/test-user.ts';
import { roleGuardHooks } from '../../src/auth/identity/role-guard-hooks.ts';
import {
  bearer,
  errorCodes,
  errorPointers,
  issueKey,
  PASSWORD,
  signUp,
  startApp,
  uniqueEmail,
  type AuthTestApp,
} from './auth-fixtures.ts';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
/** Names that are members of every plain object, and names no configuration defines. */
const UNDEFINED_ROLES = [
  'constructor',
  '__proto__',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'memebr',
  'Editor',
];
const RESOURCES = ['posts', 'categories', 'comments'];

/** BLOG_RESOURCES plus an `auditor` who may read posts: the configuration before the role is removed. */
const WITH_AUDITOR = structuredClone(BLOG_RESOURCES);
WITH_AUDITOR.posts!.permissions!.auditor = { read: true };

async function captureStderr(run: () => Promise<number>): Promise<{ code: number; stderr: string }> {
  const original = process.stderr.write.bind(process.stderr);
  let stderr = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    return { code: await run(), stderr };
  } finally {
    process.stderr.write = original;
  }
}

for (const dialect of testDialects()) {
  describe(`defined roles on ${dialect}`, () => {
    let database: TestDatabase;
    let t: AuthTestApp;
    let userId: string;
    let email: string;

    const admin = (method: 'GET' | 'PATCH', url: string, payload?: object) =>
      t.inject({ method, url, headers: ADMIN, ...(payload ? { payload } : {}) });

    before(async () => {
      database = await createTestDatabase(dialect);
      t = await startApp(testConfig(database.url, { resources: WITH_AUDITOR }));
      email = uniqueEmail('roles');
      userId = (await signUp(t, email)).id;
    });
    after(async () => {
      await t.close();
      await database.drop();
    });

    for (const role of UNDEFINED_ROLES) {
      it(`refuses primaryRole '${role}' with 400 INVALID_RESOURCE_DATA at /data/attributes/primaryRole`, async () => {
        const response = await admin('PATCH', `/admin/users/${userId}`, { primaryRole: role });
        assert.equal(response.statusCode, 400, response.body);
        assert.deepEqual(errorCodes(response), ['INVALID_RESOURCE_DATA']);
        assert.deepEqual(errorPointers(response), ['/data/attributes/primaryRole']);
        assert.match(
          response.json().errors[0].detail,
          /not defined in the configuration \(defined roles: auditor, editor, user\)/,
        );
        assert.equal((await admin('GET', `/admin/users/${userId}`)).json().data.attributes.primaryRole, 'user');
      });

      it(`refuses allowedRoles naming '${role}', pointing at its index`, async () => {
        const response = await admin('PATCH', `/admin/users/${userId}`, { allowedRoles: ['editor', role] });
        assert.equal(response.statusCode, 400, response.body);
        assert.deepEqual(errorPointers(response), ['/data/attributes/allowedRoles/1']);
        assert.equal((await admin('GET', `/admin/users/${userId}`)).json().data.attributes.allowedRoles, '[]');
      });
    }

    it('refuses every undefined role of one PATCH at once', async () => {
      const response = await admin('PATCH', `/admin/users/${userId}`, {
        primaryRole: 'constructor',
        allowedRoles: ['toString', 'user', '__proto__'],
      });
      assert.deepEqual(errorPointers(response), [
        '/data/attributes/primaryRole',
        '/data/attributes/allowedRoles/0',
        '/data/attributes/allowedRoles/2',
      ]);
    });

    it('does not let sign-up pick a role: a sign-up naming constructor gets the default role and no create grant', async () => {
      const sneaky = uniqueEmail('sneaky');
      const user = await signUp(t, sneaky, PASSWORD, { primaryRole: 'constructor', allowedRoles: '["constructor"]' });
      assert.equal((await admin('GET', `/admin/users/${user.id}`)).json().data.attributes.primaryRole, 'user');
      const { key } = await issueKey(t, { email: sneaky, password: PASSWORD });
      const created = await t.inject({
        method: 'POST',
        url: '/v1/comments',
        headers: bearer(key),
        payload: { post_id: '01890a5d-ac96-774b-bcce-b302099a8057', body: 'x' },
      });
      assert.equal(created.statusCode, 403);
      assert.deepEqual(errorCodes(created), ['FORBIDDEN']);
    });

    it('does not let a signed-in user set its own role through the identity endpoints', async () => {
      const self = uniqueEmail('self');
      const user = await signUp(t, self);
      const signIn = await t.inject({
        method: 'POST',
        url: '/auth/sign-in/email',
        payload: { email: self, password: PASSWORD },
      });
      const cookies = signIn.headers['set-cookie'];
      const cookie = (Array.isArray(cookies) ? cookies : [String(cookies)]).map((c) => c.split(';')[0]).join('; ');
      for (const primaryRole of ['editor', 'constructor']) {
        const update = await t.inject({
          method: 'POST',
          url: '/auth/update-user',
          headers: { cookie, origin: 'http://localhost:5173' },
          payload: { primaryRole, allowedRoles: '["editor"]' },
        });
        assert.ok(update.statusCode < 500, update.body);
        const stored = (await admin('GET', `/admin/users/${user.id}`)).json().data.attributes;
        assert.equal(stored.primaryRole, 'user');
        assert.equal(stored.allowedRoles, '[]');
      }
    });

    for (const role of UNDEFINED_ROLES) {
      it(`answers X-Service-Role '${role}' with 403 FORBIDDEN`, async () => {
        const { key } = await issueKey(t, { email, password: PASSWORD });
        const response = await t.inject({
          method: 'GET',
          url: '/v1/posts',
          headers: { ...bearer(key), 'x-service-role': role },
        });
        assert.equal(response.statusCode, 403, response.body);
        assert.deepEqual(errorCodes(response), ['FORBIDDEN']);
      });
    }

    for (const role of UNDEFINED_ROLES) {
      it(`grants nothing to a user whose stored primaryRole is '${role}'`, async () => {
        const id = `stale-${role.replace(/[^a-zA-Z]/g, '')}-${dialect}`;
        const staleEmail = uniqueEmail('stale');
        await createTestUser(t.ctx, { id, email: staleEmail, role });
        assert.equal((await admin('GET', `/admin/users/${id}`)).json().data.attributes.primaryRole, role);
        const { key } = await issueKey(t, { email: staleEmail, password: TEST_PASSWORD });
        for (const resource of RESOURCES) {
          for (const method of ['GET', 'POST'] as const) {
            const response = await t.inject({
              method,
              url: `/v1/${resource}`,
              headers: bearer(key),
              ...(method === 'POST' ? { payload: { title: 'x', name: 'x' } } : {}),
            });
            assert.equal(response.statusCode, 403, `${method} ${resource}: ${response.body}`);
            assert.deepEqual(errorCodes(response), ['FORBIDDEN']);
          }
        }
      });
    }

    it('refuses `svc users create` with an undefined --role or --allowed-roles entry', async () => {
      const config = testConfig(database.url, { resources: WITH_AUDITOR });
      const values = (extra: Partial<CliValues>) =>
        ({ email: uniqueEmail('cli'), password: PASSWORD, ...extra }) as CliValues;
      const byRole = await captureStderr(() => runUsersCommand(config, values({ role: 'constructor' })));
      assert.equal(byRole.code, 1);
      assert.match(byRole.stderr, /role 'constructor' is not defined in the configuration/);
      const byAllowed = await captureStderr(() =>
        runUsersCommand(config, values({ role: 'editor', 'allowed-roles': 'user,memebr' })),
      );
      assert.equal(byAllowed.code, 1);
      assert.match(byAllowed.stderr, /allowedRoles\[1\]: role 'memebr' is not defined/);
      const fine = await captureStderr(() =>
        runUsersCommand(config, values({ role: 'auditor', 'allowed-roles': 'user' })),
      );
      assert.equal(fine.code, 0, fine.stderr);
    });

    it("gives users of a role removed from the configuration 403 on every resource, never another role's rights", async () => {
      const auditorEmail = uniqueEmail('auditor');
      const auditor = await signUp(t, auditorEmail);
      assert.equal((await admin('PATCH', `/admin/users/${auditor.id}`, { primaryRole: 'auditor' })).statusCode, 200);
      const switcherEmail = uniqueEmail('switcher');
      const switcher = await signUp(t, switcherEmail);
      assert.equal(
        (await admin('PATCH', `/admin/users/${switcher.id}`, { allowedRoles: ['auditor'] })).statusCode,
        200,
      );
      const auditorKey = (await issueKey(t, { email: auditorEmail, password: PASSWORD })).key;
      const switcherKey = (await issueKey(t, { email: switcherEmail, password: PASSWORD })).key;
      assert.equal((await t.inject({ method: 'GET', url: '/v1/posts', headers: bearer(auditorKey) })).statusCode, 200);
      assert.equal(
        (
          await t.inject({
            method: 'GET',
            url: '/v1/posts',
            headers: { ...bearer(switcherKey), 'x-service-role': 'auditor' },
          })
        ).statusCode,
        200,
      );

      // The same database, now served with a configuration that no longer has the auditor role.
      await t.close();
      t = await startApp(testConfig(database.url));
      for (const resource of RESOURCES) {
        for (const method of ['GET', 'POST'] as const) {
          const response = await t.inject({
            method,
            url: `/v1/${resource}`,
            headers: bearer(auditorKey),
            ...(method === 'POST' ? { payload: {} } : {}),
          });
          assert.equal(response.statusCode, 403, `${method} ${resource}: ${response.body}`);
          assert.deepEqual(errorCodes(response), ['FORBIDDEN']);
        }
      }
      const switched = await t.inject({
        method: 'GET',
        url: '/v1/posts',
        headers: { ...bearer(switcherKey), 'x-service-role': 'auditor' },
      });
      assert.equal(switched.statusCode, 403);
      assert.deepEqual(errorCodes(switched), ['FORBIDDEN']);
      // Their own (still defined) role keeps working, and the removed role can no longer be given.
      assert.equal((await t.inject({ method: 'GET', url: '/v1/posts', headers: bearer(switcherKey) })).statusCode, 200);
      const again = await admin('PATCH', `/admin/users/${switcher.id}`, { primaryRole: 'auditor' });
      assert.equal(again.statusCode, 400);
      assert.deepEqual(errorPointers(again), ['/data/attributes/primaryRole']);
    });
  });
}

describe('the identity component guards roles on every user write', () => {
  const hooks = roleGuardHooks(() => new Set(['user', 'editor']));
  const user = (extra: Record<string, unknown>) => ({
    id: 'u',
    email: 'a@b.c',
    name: 'a',
    emailVerified: false,
    createdAt: new Date(),
    updatedAt: new Date(),
    ...extra,
  });

  for (const role of UNDEFINED_ROLES) {
    it(`refuses to create or update a user with role '${role}'`, async () => {
      await assert.rejects(
        hooks.create!.before!(user({ primaryRole: role }), null),
        (error: Error & { body?: { code?: string } }) => error.body?.code === 'INVALID_RESOURCE_DATA',
      );
      await assert.rejects(
        hooks.update!.before!({ allowedRoles: JSON.stringify(['user', role]) }, null),
        /allowedRoles\[1\]/,
      );
    });
  }

  it('lets defined roles and writes that leave roles alone through', async () => {
    await hooks.create!.before!(user({ primaryRole: 'user', allowedRoles: '["editor"]' }), null);
    await hooks.update!.before!({ emailVerified: true }, null);
  });
});

for (const dialect of testDialects()) {
  describe(`role warnings at start on ${dialect}`, () => {
    it('logs a role named under one resource while others are under several, with its path', async () => {
      const database = await createTestDatabase(dialect);
      const resources = structuredClone(BLOG_RESOURCES);
      resources.comments!.permissions!.memebr = { read: true };
      const t = await startApp(testConfig(database.url, { resources }));
      try {
        const warnings = t.logs.filter(
          (line) => line.level === 40 && line.path === 'resources.comments.permissions.memebr',
        );
        assert.equal(warnings.length, 1, JSON.stringify(t.logs.filter((line) => line.level >= 40)));
        assert.match(warnings[0]!.msg, /role "memebr" is named under no other resource/);
      } finally {
        await t.close();
        await database.drop();
      }
    });
  });
}
