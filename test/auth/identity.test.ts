// The identity component mounted at /auth (better-auth): sign-up and sign-in over JSON and HTML
// forms, session cookies copied through, the signing secret, social providers, and createUser.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDialects } from '../helpers/test-databases.ts';
import { testConfig } from '../helpers/test-config.ts';
import { resolveIdentitySecret } from '../../src/auth/identity/resolve-identity-secret.ts';
import { buildIdentityOptions } from '../../src/auth/identity/build-identity-options.ts';
import { createVerificationMailer } from '../../src/auth/identity/verification-mailer.ts';
import { createUser } from '../../src/auth/create-user.ts';
import { createStore } from '../../src/store/create-store.ts';
import { sqliteDialect } from '../../src/store/sqlite/sqlite-dialect.ts';
import { postgresDialect } from '../../src/store/postgres/postgres-dialect.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import {
  PASSWORD,
  errorCodes,
  issueKey,
  signUp,
  startAuthSuite,
  testLogger,
  uniqueEmail,
  type AuthSuite,
} from './auth-fixtures.ts';

for (const dialect of testDialects()) {
  describe(`identity routes on ${dialect}`, () => {
    let suite: AuthSuite;
    before(async () => {
      suite = await startAuthSuite(dialect);
    });
    after(() => suite.close());

    it('signs in and copies every Set-Cookie back; the cookie opens a session', async () => {
      const email = uniqueEmail('cookie');
      await signUp(suite.t, email);
      const signIn = await suite.t.inject({
        method: 'POST',
        url: '/auth/sign-in/email',
        payload: { email, password: PASSWORD, rememberMe: false },
      });
      assert.equal(signIn.statusCode, 200, signIn.body);
      const cookies = signIn.headers['set-cookie'];
      assert.ok(
        Array.isArray(cookies) && cookies.length >= 2,
        `several cookies expected, got ${JSON.stringify(cookies)}`,
      );
      assert.ok(cookies.some((c) => c.startsWith('svc.session_token=')));
      const cookieHeader = cookies.map((c) => c.split(';')[0]).join('; ');
      const session = await suite.t.inject({
        method: 'GET',
        url: '/auth/get-session',
        headers: { cookie: cookieHeader },
      });
      assert.equal(session.statusCode, 200);
      assert.equal(session.json().user.email, email);
      assert.equal(session.json().user.primaryRole, 'user');
    });

    it('accepts an HTML form sign-up (application/x-www-form-urlencoded)', async () => {
      const email = uniqueEmail('form');
      const response = await suite.t.inject({
        method: 'POST',
        url: '/auth/sign-up/email',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:5173' },
        payload: new URLSearchParams({ name: 'Form User', email, password: PASSWORD }).toString(),
      });
      assert.equal(response.statusCode, 200, response.body);
      await issueKey(suite.t, { email, password: PASSWORD });
    });

    it('passes better-auth errors through (duplicate sign-up)', async () => {
      const email = uniqueEmail('dup');
      await signUp(suite.t, email);
      const again = await suite.t.inject({
        method: 'POST',
        url: '/auth/sign-up/email',
        payload: { name: 'x', email, password: PASSWORD },
      });
      assert.equal(again.statusCode, 422);
    });

    it('answers paths better-auth does not know with 404 ROUTE_NOT_FOUND', async () => {
      const response = await suite.t.inject({ method: 'GET', url: '/auth/no-such-endpoint' });
      assert.equal(response.statusCode, 404);
      assert.deepEqual(errorCodes(response), ['ROUTE_NOT_FOUND']);
    });

    it('keeps form bodies to its own routes: elsewhere they are 415', async () => {
      const response = await suite.t.inject({
        method: 'POST',
        url: '/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'email=a&password=b',
      });
      assert.equal(response.statusCode, 415);
      assert.deepEqual(errorCodes(response), ['UNSUPPORTED_MEDIA_TYPE']);
    });

    it('creates users for the CLI with role, allowed roles and verification, and refuses duplicates', async () => {
      const email = uniqueEmail('cli');
      const user = await createUser(suite.t.ctx.auth, {
        email,
        password: PASSWORD,
        role: 'editor',
        allowedRoles: ['user', 'editor'],
        verified: true,
      });
      assert.equal(user.primaryRole, 'editor');
      assert.equal(user.allowedRoles, '["user","editor"]');
      assert.equal(user.emailVerified, true);
      const issued = await issueKey(suite.t, { email, password: PASSWORD });
      const { principal } = await suite.t.ctx.auth.authenticate({
        authorization: `Bearer ${issued.key}`,
        role: 'user',
      });
      assert.equal(principal.kind === 'key' && principal.role, 'user');
      await assert.rejects(
        createUser(suite.t.ctx.auth, { email: email.toUpperCase(), password: PASSWORD }),
        (error: unknown) => error instanceof ApiError && error.code === 'CONFLICT',
      );
      await assert.rejects(
        createUser(suite.t.ctx.auth, { email: uniqueEmail(), password: 'short' }),
        (error: unknown) => error instanceof ApiError && error.code === 'INVALID_RESOURCE_DATA',
      );
    });
  });
}

describe('identity signing secret', () => {
  it('uses SVC_SECRET when given', () => {
    const secret = 's'.repeat(40);
    assert.equal(
      resolveIdentitySecret({ dataDir: '/nonexistent' }, { dialect: postgresDialect }, { SVC_SECRET: secret }),
      secret,
    );
  });

  it('refuses a short SVC_SECRET', () => {
    assert.throws(
      () => resolveIdentitySecret({ dataDir: '/nonexistent' }, { dialect: sqliteDialect }, { SVC_SECRET: 'short' }),
      /too short/,
    );
  });

  it('requires SVC_SECRET with PostgreSQL', () => {
    assert.throws(
      () => resolveIdentitySecret({ dataDir: '/nonexistent' }, { dialect: postgresDialect }, {}),
      /SVC_SECRET is required with PostgreSQL/,
    );
  });

  it('generates one for SQLite, stores it with mode 0600 and reuses it', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'svc-secret-')), 'nested');
    const first = resolveIdentitySecret({ dataDir }, { dialect: sqliteDialect }, {});
    assert.ok(first.length >= 32);
    const path = join(dataDir, 'secret');
    assert.equal(readFileSync(path, 'utf8').trim(), first);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(resolveIdentitySecret({ dataDir }, { dialect: sqliteDialect }, {}), first);
  });
});

describe('identity options', () => {
  const log = testLogger();
  const config = testConfig('sqlite::memory:', {
    auth: {
      basePath: '/auth',
      requireEmailVerification: false,
      defaultRole: 'member',
      social: { github: { clientId: 'id', clientSecret: 'secret' }, google: { clientId: 'id', clientSecret: '' } },
      email: { from: 'svc <no-reply@localhost>' },
    },
  });

  it('enables a social provider only when both credentials are set, and uses svc_ tables and the default role', async () => {
    const store = createStore('sqlite::memory:');
    try {
      const options = buildIdentityOptions({
        config,
        store,
        secret: 'x'.repeat(40),
        mailer: createVerificationMailer(config.auth.email, log),
        log,
      });
      assert.deepEqual(Object.keys(options.socialProviders ?? {}), ['github']);
      assert.equal(options.user?.modelName, 'svc_users');
      assert.equal(options.session?.modelName, 'svc_sessions');
      assert.equal(options.account?.modelName, 'svc_accounts');
      assert.equal(options.verification?.modelName, 'svc_verifications');
      assert.equal(options.user?.additionalFields?.primaryRole?.defaultValue, 'member');
      assert.equal(options.user?.additionalFields?.primaryRole?.input, false);
      assert.equal(options.baseURL, 'http://localhost:0');
      // CORS origins (server.cors) are not trusted for cookies unless auth.trustedOrigins lists them.
      assert.deepEqual(options.trustedOrigins, []);
    } finally {
      await store.close();
    }
  });
});
