// svc/client against a listening svc over real sockets, on SQLite and PostgreSQL: sign-in (a password,
// a session token, a session cookie from the browser's origin), records (create, get, list with its
// query language, update, delete), the errors it throws, the caller's own key, and the admin's keys.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createClient, SvcClientError } from '../../src/client/index.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { CookieJar } from '../helpers/cookie-jar.ts';
import {
  adminAuthorization,
  POSTS_RESOURCE,
  startStreamTestApp,
  type StreamTestApp,
} from '../helpers/stream-test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { createTestUser, TEST_PASSWORD } from '../helpers/test-user.ts';

const RESOURCES: Record<string, ResourceDefinition> = {
  posts: {
    ...POSTS_RESOURCE,
    fields: {
      ...POSTS_RESOURCE.fields,
      title: { type: 'string', required: true, sortable: true },
      views: { type: 'integer', sortable: true, minimum: 0 },
    },
  },
};
/** The test config's trusted origin: the page a browser would send the session cookie from. */
const BROWSER_ORIGIN = 'http://localhost:5173';

/** The error a call rejects with, checked to be the client's own. */
async function refusal(call: Promise<unknown>): Promise<SvcClientError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof SvcClientError, `a SvcClientError, not ${String(error)}`);
    return error;
  }
  assert.fail('the call succeeded');
}

/**
 * A browser's fetch on BROWSER_ORIGIN, as far as the client can tell: it keeps the cookies the service
 * sets, sends them back only when a request asks for credentials, and names its origin.
 */
function browserFetch(jar: CookieJar): typeof fetch {
  return async (input, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('origin', BROWSER_ORIGIN);
    if (init.credentials === 'include' && jar.names().length > 0) headers.set('cookie', jar.header());
    const response = await fetch(input, { ...init, headers });
    jar.absorb(response.headers.getSetCookie());
    return response;
  };
}

for (const dialect of testDialects()) {
  describe(`svc/client over HTTP (${dialect})`, () => {
    let t: StreamTestApp;
    let email: string;
    const userId = `client-${dialect}-${randomUUID()}`;
    before(async () => {
      t = await startStreamTestApp({ dialect, resources: RESOURCES });
      email = `${userId}@example.test`;
      await createTestUser(t.ctx, { id: userId, email, role: 'editor' });
    });
    after(() => t.close());

    it('signs in with a password and creates, gets, lists, updates and deletes records', async () => {
      const client = createClient({ baseUrl: t.baseUrl });
      const issued = await client.signIn({ email, password: TEST_PASSWORD, name: 'client test' });
      assert.match(issued.key, /\S{20,}/);
      assert.equal(issued.name, 'client test');
      const posts = client.records('posts');

      const created = await posts.create({ title: 'first', views: 3, author_id: userId });
      assert.equal(created.title, 'first');
      assert.equal(created.views, 3);
      assert.equal(created.status, 'draft', 'the default applies');
      assert.match(String(created.created_at), /Z$/);
      for (const [title, views] of [
        ['second', 10],
        ['third', 7],
        ['fourth', 1],
      ] as const) {
        await posts.create({ title, views, author_id: userId });
      }

      const got = await posts.get(created.id, { fields: ['title'] });
      assert.deepEqual(Object.keys(got).sort(), ['created_at', 'id', 'title', 'updated_at']);

      const page = await posts.list({
        filter: { views__gte: 3, author_id: userId },
        sort: ['-views'],
        limit: 2,
        fields: ['title', 'views'],
      });
      assert.deepEqual(
        page.data.map((post) => post.title),
        ['second', 'third'],
      );
      assert.equal(page.total, 3, 'the total counts every page');
      assert.ok(page.links.next, 'a next link while records remain');
      const second = await posts.list({ filter: { views__gte: 3, author_id: userId }, sort: ['-views'], offset: 2 });
      assert.deepEqual(
        second.data.map((post) => post.title),
        ['first'],
      );
      const titled = await posts.list({
        filter: { title__in: ['first', 'fourth'], author_id: userId },
        sort: ['title'],
      });
      assert.deepEqual(
        titled.data.map((post) => post.title),
        ['first', 'fourth'],
      );

      const updated = await posts.update(created.id, { title: 'first, edited' });
      assert.equal(updated.title, 'first, edited');
      assert.equal(updated.views, 3, 'an update leaves the other fields');
      assert.equal((await posts.get(created.id)).title, 'first, edited');

      await posts.delete(created.id);
      const gone = await refusal(posts.get(created.id));
      assert.equal(gone.status, 404);
      assert.equal(gone.code, 'RESOURCE_NOT_FOUND');
    });

    it('replays a create sent again with the same idempotency key', async () => {
      const client = createClient({ baseUrl: t.baseUrl });
      await client.signIn({ email, password: TEST_PASSWORD });
      const idempotencyKey = randomUUID();
      const first = await client.records('posts').create({ title: 'once', author_id: userId }, { idempotencyKey });
      const again = await client.records('posts').create({ title: 'once', author_id: userId }, { idempotencyKey });
      assert.equal(again.id, first.id);
      const listed = await client.records('posts').list({ filter: { title: 'once', author_id: userId } });
      assert.equal(listed.total, 1);
    });

    it("throws the server's errors with their status, code, pointer and parameter", async () => {
      const client = createClient({ baseUrl: t.baseUrl });
      const unsigned = await refusal(client.records('posts').list());
      assert.equal(unsigned.status, 401);
      assert.equal(unsigned.code, 'UNAUTHORIZED');

      const wrongPassword = await refusal(client.signIn({ email, password: 'not the password' }));
      assert.equal(wrongPassword.status, 401);
      assert.equal(wrongPassword.code, 'INVALID_CREDENTIALS');

      await client.signIn({ email, password: TEST_PASSWORD });
      const negative = await refusal(client.records('posts').create({ title: 'x', views: -1 }));
      assert.equal(negative.errors[0]?.source?.pointer, '/data/attributes/views');
      const badSort = await refusal(client.records('posts').list({ sort: ['body' as 'views'] }));
      assert.equal(badSort.status, 400);
      assert.equal(badSort.code, 'INVALID_QUERY_PARAMS');
      assert.equal(badSort.errors[0]?.source?.parameter, '_sort');
      const badLimit = await refusal(client.records('posts').list({ limit: 5000 }));
      assert.equal(badLimit.code, 'INVALID_QUERY_PARAMS');
    });

    it('reads the caller with keys.me and signs out with keys.revoke, after which the key is refused', async () => {
      const client = createClient({ baseUrl: t.baseUrl });
      const { key } = await client.signIn({ email, password: TEST_PASSWORD });
      const me = await client.keys.me();
      assert.equal(me.id, userId);
      await client.keys.revoke();
      const forgotten = await refusal(client.records('posts').list());
      assert.equal(forgotten.code, 'UNAUTHORIZED', 'the client no longer sends the revoked key');
      client.setApiKey(key);
      const revoked = await refusal(client.records('posts').list());
      assert.equal(revoked.status, 401);
      assert.equal(revoked.code, 'INVALID_API_KEY');
    });

    it('lists, reads, disables and deletes keys with the admin token', async () => {
      const user = createClient({ baseUrl: t.baseUrl });
      const issued = await user.signIn({ email, password: TEST_PASSWORD, name: 'to be managed' });
      const admin = createClient({ baseUrl: t.baseUrl, apiKey: adminAuthorization(t.config).slice('Bearer '.length) });

      const keys = await admin.keys.list();
      assert.ok(
        keys.some((key) => key.id === issued.id),
        'the new key is listed',
      );
      const read = await admin.keys.get(issued.id);
      assert.equal(read.name, 'to be managed');
      assert.equal(read.key, undefined, "a key's secret is never sent again");

      const disabled = await admin.keys.update(issued.id, { enabled: false });
      assert.equal(disabled.enabled, false);
      const refused = await refusal(user.records('posts').list());
      assert.equal(refused.code, 'API_KEY_DISABLED');

      await admin.keys.delete(issued.id);
      const missing = await refusal(admin.keys.get(issued.id));
      assert.equal(missing.status, 404);
      const deleted = await refusal(user.records('posts').list());
      assert.equal(deleted.code, 'INVALID_API_KEY');

      const notAdmin = await refusal(
        createClient({
          baseUrl: t.baseUrl,
          apiKey: (await user.signIn({ email, password: TEST_PASSWORD })).key,
        }).keys.list(),
      );
      assert.equal(notAdmin.status, 403);
    });

    it("exchanges a browser's session cookie for a key when withCredentials is set", async () => {
      const jar = new CookieJar();
      const signedIn = await browserFetch(jar)(new URL('/auth/sign-in/email', t.baseUrl), {
        method: 'POST',
        credentials: 'include',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: TEST_PASSWORD }),
      });
      assert.equal(signedIn.status, 200, await signedIn.text());
      assert.ok(jar.names().length > 0, 'the sign-in set a session cookie');

      const withoutCookies = createClient({ baseUrl: t.baseUrl, fetch: browserFetch(jar) });
      const noSession = await refusal(withoutCookies.signIn({ name: 'from the session' }));
      assert.equal(noSession.status, 401, 'without credentials the cookie stays in the browser');

      const client = createClient({ baseUrl: t.baseUrl, fetch: browserFetch(jar), withCredentials: true });
      const issued = await client.signIn({ name: 'from the session' });
      assert.equal(issued.name, 'from the session');
      const created = await client.records('posts').create({ title: 'by session', author_id: userId });
      assert.equal((await client.keys.me()).id, userId);
      await client.records('posts').delete(created.id);
    });

    it('exchanges a session token for a key', async () => {
      const response = await fetch(new URL('/auth/sign-in/email', t.baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: TEST_PASSWORD }),
      });
      assert.equal(response.status, 200);
      const { token } = (await response.json()) as { token: string };
      const client = createClient({ baseUrl: t.baseUrl });
      const issued = await client.signIn({ sessionToken: token, expiresIn: 3600 });
      assert.ok(issued.expiresAt);
      assert.equal((await client.keys.me()).id, userId);
      const noToken = await refusal(createClient({ baseUrl: t.baseUrl }).signIn({}));
      assert.equal(noToken.status, 401);
    });
  });
}
