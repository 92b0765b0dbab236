// Idempotency-Key on POST /token (docs/authentication.md), on every dialect: a retry with the same
// credentials and options gets the same key, secret included, and no second key is issued; the secret
// is kept only sealed with the password; other credentials or options under the key are 422.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { IDEMPOTENCY_TABLE } from '../../src/idempotency/idempotency-table.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createTestUser, TEST_PASSWORD } from '../helpers/test-user.ts';

for (const dialect of testDialects()) {
  describe(`Idempotency-Key on POST /token (${dialect})`, () => {
    let t: TestApp;
    const email = `token-retry-${randomUUID().slice(0, 8)}@example.test`;
    const userId = 'token-retry-user';

    before(async () => {
      t = await startTestApp(dialect);
      await createTestUser(t.ctx, { id: userId, email, role: 'editor' });
    });
    after(() => t?.close());

    const token = (key: string, body: Record<string, unknown>) =>
      t.request({ method: 'POST', url: '/token', payload: body, headers: { 'idempotency-key': key } });
    const keysOfUser = async () => (await t.ctx.auth.keys.list({ userId, limit: 100, offset: 0 })).total;

    it('gives a retry the same key without issuing another, and stores no secret in the clear', async () => {
      const key = randomUUID();
      const before = await keysOfUser();
      const first = await token(key, { email, password: TEST_PASSWORD, name: 'laptop' });
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(first.headers['cache-control'], 'no-store');
      const issued = first.json();
      assert.match(issued.key, /^svc_/);

      // The email in another letter case is the same account, and the same request.
      const same = await token(key, { name: 'laptop', password: TEST_PASSWORD, email: email.toUpperCase() });
      assert.equal(same.statusCode, 201, same.body);
      assert.equal(same.headers['idempotency-replayed'], 'true');
      assert.equal(same.headers['cache-control'], 'no-store');
      assert.match(String(same.headers['content-type']), /^application\/json/);
      assert.equal(same.body, first.body);
      assert.equal(await keysOfUser(), before + 1, 'one key issued');

      const works = await t.request({ method: 'GET', url: '/v1/categories', auth: `Bearer ${issued.key}` });
      assert.equal(works.statusCode, 200, works.body);

      const rows = await t.ctx.store.db
        .selectFrom(IDEMPOTENCY_TABLE)
        .selectAll()
        .where('idempotency_key', '=', key)
        .execute();
      assert.equal(rows.length, 1);
      const stored = JSON.stringify(rows[0]);
      assert.ok(!stored.includes(issued.key), 'the secret is sealed');
      assert.ok(!stored.includes(issued.key.slice(4, 20)), 'no part of the secret either');
      assert.ok(!stored.includes(TEST_PASSWORD), 'nor the password');
      assert.ok(!stored.toLowerCase().includes(email.toLowerCase()), 'the email only as a hash');
    });

    it('answers 422 IDEMPOTENCY_KEY_REUSED to another password or other options under the key', async () => {
      const key = randomUUID();
      assert.equal((await token(key, { email, password: TEST_PASSWORD })).statusCode, 201);
      const wrongPassword = await token(key, { email, password: 'not the password' });
      assert.equal(wrongPassword.statusCode, 422, wrongPassword.body);
      assert.equal(wrongPassword.json().errors[0].code, 'IDEMPOTENCY_KEY_REUSED');
      const otherOptions = await token(key, { email, password: TEST_PASSWORD, name: 'other' });
      assert.equal(otherOptions.statusCode, 422, otherOptions.body);
      assert.deepEqual(otherOptions.json().errors[0].source, { parameter: 'Idempotency-Key' });
    });

    it('counts a replay whose password does not open the answer as a failed sign-in, so replays cannot guess passwords', async () => {
      // Its own account: the default throttle (10 failures per account) locks it for the window.
      const victim = `token-guess-${randomUUID().slice(0, 8)}@example.test`;
      await createTestUser(t.ctx, { id: 'token-guess-user', email: victim, role: 'editor' });
      const key = randomUUID();
      assert.equal((await token(key, { email: victim, password: TEST_PASSWORD })).statusCode, 201);
      const codes: string[] = [];
      for (let guess = 0; guess < 11; guess++) {
        const response = await token(key, { email: victim, password: `guess ${guess}` });
        codes.push(response.json().errors[0].code);
      }
      assert.deepEqual(codes, [...Array(10).fill('IDEMPOTENCY_KEY_REUSED'), 'RATE_LIMITED']);
      const locked = await token(key, { email: victim, password: TEST_PASSWORD });
      assert.equal(locked.statusCode, 429, 'the account is throttled for replays too, right password or not');
    });

    it('gives the key back after refused credentials, so a retry with the right ones runs', async () => {
      const key = randomUUID();
      const refused = await token(key, { email, password: 'wrong password' });
      assert.equal(refused.statusCode, 401, refused.body);
      const accepted = await token(key, { email, password: TEST_PASSWORD });
      assert.equal(accepted.statusCode, 201, accepted.body);
      assert.equal(accepted.headers['idempotency-replayed'], undefined);
    });

    it('refuses a malformed key with 400 before looking at the credentials', async () => {
      const response = await token('not a key', { email, password: TEST_PASSWORD });
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json().errors[0].code, 'INVALID_IDEMPOTENCY_KEY');
    });
  });
}
