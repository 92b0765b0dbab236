// The admin token (docs/authentication.md): configured, or generated at first start, stored hashed, shown
// once on standard error (never in the log), and rotated by the CLI's rotateAdminToken.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { testDialects } from '../helpers/test-databases.ts';
import {
  announceOnStderr,
  readStoredAdminTokenHash,
  rotateAdminToken,
} from '../../src/auth/admin/stored-admin-token.ts';
import { errorCodes, startApp, startAuthSuite, type AuthSuite } from './auth-fixtures.ts';

const WARN = 40;

for (const dialect of testDialects()) {
  describe(`generated admin token on ${dialect}`, () => {
    let suite: AuthSuite;
    let token: string;

    before(async () => {
      suite = await startAuthSuite(dialect, { adminToken: '' });
      const line = suite.t.logs.find((l) => l.level === WARN && /admin token/.test(l.msg));
      assert.ok(line, 'that a token was generated is logged at warn level');
      assert.equal(suite.t.announced.length, 1, 'the generated token is shown once');
      token = suite.t.announced[0]!;
      assert.match(token, /^svcadm_[A-Za-z0-9_-]{43}$/);
      assert.ok(!suite.t.logs.some((l) => JSON.stringify(l).includes(token)), 'the token itself never reaches the log');
    });
    after(() => suite.close());

    const listUsers = (t: AuthSuite['t'], bearerToken: string) =>
      t.inject({ method: 'GET', url: '/admin/users', headers: { authorization: `Bearer ${bearerToken}` } });

    it('accepts the printed token on admin routes', async () => {
      assert.equal((await listUsers(suite.t, token)).statusCode, 200);
    });

    it('stores only its SHA-256', async () => {
      const rows = await suite.t.ctx.store.db.selectFrom('svc_admin_tokens').selectAll().execute();
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.token_hash, createHash('sha256').update(token).digest('hex'));
      assert.ok(!JSON.stringify(rows).includes(token));
      assert.equal(await readStoredAdminTokenHash(suite.t.ctx.store), rows[0]?.token_hash);
    });

    it('is not generated or printed again on the next start', async () => {
      const again = await startApp(suite.config, suite.t.ctx.store);
      try {
        assert.equal(again.logs.filter((l) => /admin token/.test(l.msg)).length, 0);
        assert.deepEqual(again.announced, []);
        assert.equal((await listUsers(again, token)).statusCode, 200);
      } finally {
        await again.close();
      }
    });

    it('rotates: the new token works and the old one no longer does', async () => {
      const rotated = await rotateAdminToken(suite.t.ctx.store);
      assert.match(rotated, /^svcadm_/);
      assert.notEqual(rotated, token);
      const fresh = await startApp(suite.config, suite.t.ctx.store);
      try {
        assert.equal((await listUsers(fresh, rotated)).statusCode, 200);
        const old = await listUsers(fresh, token);
        assert.equal(old.statusCode, 401);
        assert.deepEqual(errorCodes(old), ['INVALID_API_KEY']);
      } finally {
        await fresh.close();
      }
    });
  });

  describe(`configured admin token on ${dialect}`, () => {
    let suite: AuthSuite;
    before(async () => {
      suite = await startAuthSuite(dialect);
    });
    after(() => suite.close());

    it('generates nothing and prints nothing', async () => {
      assert.equal(suite.t.logs.filter((l) => /admin token/.test(l.msg)).length, 0);
      const rows = await suite.t.ctx.store.db.selectFrom('svc_admin_tokens').selectAll().execute();
      assert.equal(rows.length, 0);
    });

    it('refuses a token that differs from the configured one', async () => {
      const response = await suite.t.inject({
        method: 'GET',
        url: '/admin/users',
        headers: { authorization: `Bearer ${suite.config.adminToken}x` },
      });
      assert.equal(response.statusCode, 401);
    });
  });
}

describe('showing a generated admin token', () => {
  it('writes a block on standard error that says how to keep or replace it', () => {
    const written: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      announceOnStderr('svcadm_example');
    } finally {
      process.stderr.write = original;
    }
    const text = written.join('');
    assert.match(text, /\n {4}svcadm_example\n/);
    assert.match(text, /SVC_ADMIN_TOKEN/);
    assert.match(text, /svc admin-token --rotate/);
  });
});
