// Account changes made through the identity endpoints on one node end the key's stream open on another
// node of the same PostgreSQL database: a user deleting their own account, and a password reset (with
// auth.passwordReset.revokeKeys on, the default). A reconnection on the other node is then refused.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { SseClient } from '../helpers/sse-client.ts';
import { startStreamTestApp, type StreamTestApp } from '../helpers/stream-test-app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases.ts';
import { createTestUser, TEST_PASSWORD } from '../helpers/test-user.ts';

const PG_SKIP = process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set';

async function userWithKey(node: StreamTestApp): Promise<{ id: string; email: string; key: string; session: string }> {
  const id = `account-${randomBytes(4).toString('hex')}`;
  const email = `${id}@example.test`;
  await createTestUser(node.ctx, { id, email, role: 'editor' });
  const issued = await node.app.inject({ method: 'POST', url: '/token', payload: { email, password: TEST_PASSWORD } });
  assert.equal(issued.statusCode, 201, issued.body);
  const signedIn = await node.app.inject({
    method: 'POST',
    url: '/auth/sign-in/email',
    payload: { email, password: TEST_PASSWORD },
  });
  assert.equal(signedIn.statusCode, 200, signedIn.body);
  return {
    id,
    email,
    key: (issued.json() as { key: string }).key,
    session: (signedIn.json() as { token: string }).token,
  };
}

async function openOn(node: StreamTestApp, key: string): Promise<SseClient> {
  const client = await SseClient.connect(`${node.baseUrl}/v1/posts/stream`, {
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(client.status, 200);
  await client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
  return client;
}

describe('account changes end streams on another node (PostgreSQL)', { skip: PG_SKIP }, () => {
  let database: TestDatabase;
  let a: StreamTestApp;
  let b: StreamTestApp;
  const clients: SseClient[] = [];

  before(async () => {
    database = await createTestDatabase('postgres');
    a = await startStreamTestApp({ database });
    b = await startStreamTestApp({ database });
  });
  after(async () => {
    for (const client of clients) client.close();
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('a user deleting their account on node A ends their stream on node B', async () => {
    const user = await userWithKey(a);
    const client = await openOn(b, user.key);
    clients.push(client);
    const deleted = await a.app.inject({
      method: 'POST',
      url: '/auth/delete-user',
      headers: { authorization: `Bearer ${user.session}` },
      payload: { password: TEST_PASSWORD },
    });
    assert.equal(deleted.statusCode, 200, deleted.body);
    await client.waitFor((block) => block.event === 'revoked', { timeoutMs: 10_000, what: 'the revoked event' });
    await client.ended;
    assert.equal(
      (await b.app.inject({ method: 'GET', url: '/v1/posts/stream', headers: { authorization: `Bearer ${user.key}` } }))
        .statusCode,
      401,
    );
  });

  it('a password reset on node A ends the stream on node B', async () => {
    const user = await userWithKey(a);
    const client = await openOn(b, user.key);
    clients.push(client);
    assert.equal(
      (await a.app.inject({ method: 'POST', url: '/auth/request-password-reset', payload: { email: user.email } }))
        .statusCode,
      200,
    );
    // The mailed token (no SMTP server here, so read where better-auth keeps it).
    const row = await sql<{
      identifier: string;
    }>`select identifier from svc_verifications where value = ${user.id} and identifier like 'reset-password:%'`.execute(
      a.ctx.store.db,
    );
    const token = row.rows[0]?.identifier.slice('reset-password:'.length);
    assert.ok(token);
    const reset = await a.app.inject({
      method: 'POST',
      url: '/auth/reset-password',
      payload: { token, newPassword: 'a brand new passphrase' },
    });
    assert.equal(reset.statusCode, 200, reset.body);
    await client.waitFor((block) => block.event === 'revoked', { timeoutMs: 10_000, what: 'the revoked event' });
    await client.ended;
    assert.equal(
      (await b.app.inject({ method: 'GET', url: '/v1/posts/stream', headers: { authorization: `Bearer ${user.key}` } }))
        .statusCode,
      401,
    );
  });
});
