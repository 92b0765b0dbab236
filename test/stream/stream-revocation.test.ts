// A stream lives only as long as its right to read: disabling, deleting, re-scoping or expiring its key,
// or deleting its user or changing the user's roles, ends it with `event: revoked`, on this node and on
// another node of the same database; a reconnection is then authenticated like any request.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SseClient } from '../helpers/sse-client.ts';
import { adminAuthorization, startStreamTestApp, type StreamTestApp } from '../helpers/stream-test-app.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import type { TestKey } from '../helpers/stream-test-keys.ts';
import { ClusterSignals } from '../../src/cluster/cluster-signals.ts';
import { ADMIN_TOKEN_TOPIC } from '../../src/auth/create-auth-component.ts';

/** The bound the revocation must meet, plus slack for a loaded two-core test machine. */
const REVOCATION_BOUND_MS = 1000;
const SLACK_MS = 500;

/** Admin API calls through one app. */
function adminOf(t: StreamTestApp) {
  const call = async (method: 'GET' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
    const response = await t.app.inject({
      method,
      url,
      headers: { authorization: adminAuthorization(t.config) },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.statusCode === 204 ? null : (response.json() as { data: unknown });
  };
  return {
    call,
    async keyIdOf(key: TestKey): Promise<string> {
      const body = (await call('GET', `/admin/keys?userId=${encodeURIComponent(key.userId)}`)) as {
        data: { id: string }[];
      };
      assert.equal(body.data.length, 1);
      return body.data[0]!.id;
    },
  };
}

async function open(
  t: StreamTestApp,
  key: TestKey,
  options: { byQuery?: boolean; headers?: Record<string, string> } = {},
): Promise<SseClient> {
  const token = key.authorization.replace(/^Bearer /, '');
  const client = options.byQuery
    ? await SseClient.connect(`${t.baseUrl}/v1/posts/stream?token=${encodeURIComponent(token)}`, {
        headers: options.headers ?? {},
      })
    : await SseClient.connect(`${t.baseUrl}/v1/posts/stream`, {
        headers: { authorization: key.authorization, ...options.headers },
      });
  assert.equal(client.status, 200, client.status === 200 ? '' : await client.body());
  await client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
  return client;
}

/** Waits for the `revoked` event and the end of the response; returns how long after `since` it came. */
async function revoked(
  client: SseClient,
  since: number,
  timeoutMs = 4000,
): Promise<{ elapsedMs: number; reason: string }> {
  const block = await client.waitFor((b) => b.event === 'revoked', { timeoutMs, what: 'the revoked event' });
  const elapsedMs = Date.now() - since;
  await Promise.race([
    client.ended,
    new Promise((_, reject) => setTimeout(() => reject(new Error('the stream stayed open after revoked')), 2000)),
  ]);
  return { elapsedMs, reason: (JSON.parse(block.data ?? '{}') as { reason: string }).reason };
}

async function refusedCode(t: StreamTestApp, key: TestKey): Promise<[number, string | undefined]> {
  const response = await t.app.inject({
    method: 'GET',
    url: '/v1/posts/stream',
    headers: { authorization: key.authorization },
  });
  return [response.statusCode, (response.json() as { errors?: { code: string }[] }).errors?.[0]?.code];
}

for (const dialect of testDialects()) {
  describe(`stream revocation (${dialect})`, () => {
    let t: StreamTestApp;
    let admin: ReturnType<typeof adminOf>;
    const clients: SseClient[] = [];
    let next = 0;
    const key = async (role = 'editor', permissions?: Parameters<StreamTestApp['key']>[2]) =>
      t.key(role, `revoke-${dialect}-${next++}`, permissions);
    const track = (client: SseClient) => {
      clients.push(client);
      return client;
    };

    before(async () => {
      t = await startStreamTestApp({ dialect });
      admin = adminOf(t);
    });
    after(async () => {
      for (const client of clients) client.close();
      await t.close();
    });

    it('ends header and ?token= streams of a disabled key with `revoked`; the key is then refused', async () => {
      const k = await key();
      const byHeader = track(await open(t, k));
      const byQuery = track(await open(t, k, { byQuery: true }));
      const since = Date.now();
      await admin.call('PATCH', `/admin/keys/${await admin.keyIdOf(k)}`, { enabled: false });
      for (const client of [byHeader, byQuery]) {
        const { elapsedMs } = await revoked(client, since);
        assert.ok(elapsedMs < REVOCATION_BOUND_MS + SLACK_MS, `revoked after ${elapsedMs} ms`);
      }
      // Nothing written after the change reaches them.
      await t.createPost({ title: 'after the disable' });
      assert.equal(byHeader.events.filter((e) => e.event === 'posts.created').length, 0);
      assert.deepEqual(await refusedCode(t, k), [401, 'API_KEY_DISABLED']);
    });

    it('ends the stream of a deleted key', async () => {
      const k = await key();
      const client = track(await open(t, k));
      await admin.call('DELETE', `/admin/keys/${await admin.keyIdOf(k)}`);
      await revoked(client, Date.now());
      assert.deepEqual(await refusedCode(t, k), [401, 'INVALID_API_KEY']);
    });

    it('ends the stream of a key that revoked itself with DELETE /me/key', async () => {
      const k = await key();
      const client = track(await open(t, k));
      const since = Date.now();
      const response = await t.app.inject({
        method: 'DELETE',
        url: '/me/key',
        headers: { authorization: k.authorization },
      });
      assert.equal(response.statusCode, 204, response.body);
      const { elapsedMs } = await revoked(client, since);
      assert.ok(elapsedMs < REVOCATION_BOUND_MS + SLACK_MS, `revoked after ${elapsedMs} ms`);
      assert.deepEqual(await refusedCode(t, k), [401, 'INVALID_API_KEY']);
    });

    it("ends the stream when the key's permissions change, and a reconnection gets the new scope", async () => {
      const k = await key();
      const client = track(await open(t, k));
      await admin.call('PATCH', `/admin/keys/${await admin.keyIdOf(k)}`, {
        permissions: { posts: { read: ['title'] } },
      });
      await revoked(client, Date.now());
      const again = track(await open(t, k));
      await t.createPost({ title: 'scoped now', body: 'not for this key' });
      const [created] = await again.waitForEvents(1);
      assert.deepEqual(Object.keys((JSON.parse(created!.data!) as { new: object }).new).sort(), [
        'created_at',
        'id',
        'title',
        'updated_at',
      ]);
    });

    it('keeps the stream open when a change leaves the key as it was (a new name)', async () => {
      const k = await key();
      const client = track(await open(t, k));
      await admin.call('PATCH', `/admin/keys/${await admin.keyIdOf(k)}`, { name: 'renamed' });
      await t.createPost({ title: 'still here' });
      await client.waitFor((b) => b.event === 'posts.created', { what: 'the event after the rename' });
      assert.equal(
        client.blocks.some((b) => b.event === 'revoked'),
        false,
      );
      assert.equal(client.isEnded, false);
    });

    it('ends the stream when the user is demoted; the reconnection reads as the new role', async () => {
      const k = await key('editor');
      const client = track(await open(t, k));
      await admin.call('PATCH', `/admin/users/${encodeURIComponent(k.userId)}`, { primaryRole: 'user' });
      await revoked(client, Date.now());
      const again = track(await open(t, k));
      await t.createPost({ title: 'not theirs', author_id: 'someone-else', secret: 's' });
      await t.createPost({ title: 'theirs', author_id: k.userId, secret: 's' });
      const [created] = await again.waitForEvents(1);
      const row = (JSON.parse(created!.data!) as { new: Record<string, unknown> }).new;
      assert.equal(row.title, 'theirs');
      assert.equal('secret' in row, false);
    });

    it("ends the stream when the user's allowedRoles change", async () => {
      const k = await key('editor');
      const client = track(await open(t, k));
      await admin.call('PATCH', `/admin/users/${encodeURIComponent(k.userId)}`, { allowedRoles: ['user'] });
      await revoked(client, Date.now());
    });

    it('ends the stream when the user is deleted; the key is then refused', async () => {
      const k = await key();
      const client = track(await open(t, k));
      await admin.call('DELETE', `/admin/users/${encodeURIComponent(k.userId)}`);
      await revoked(client, Date.now());
      assert.deepEqual(await refusedCode(t, k), [401, 'INVALID_API_KEY']);
    });

    it('ends admin-token streams when the admin token is rotated; a still valid token reconnects', async () => {
      const adminKey: TestKey = { authorization: adminAuthorization(t.config), userId: 'admin' };
      const client = track(await open(t, adminKey));
      // What `svc admin-token --rotate` tells the running servers, from another process's signals.
      const { store } = t.ctx;
      const cli = new ClusterSignals({
        db: store.db,
        dialect: store.dialect,
        log: t.ctx.log,
        pollIntervalMs: 1000,
        retentionMs: 3_600_000,
      });
      await cli.publish(ADMIN_TOKEN_TOPIC, {});
      await revoked(client, Date.now());
      track(await open(t, adminKey));
    });

    it('ends the stream when its key expires, with no write to notice it', async () => {
      const k = await key();
      const expiresAt = Date.now() + 1500;
      await admin.call('PATCH', `/admin/keys/${await admin.keyIdOf(k)}`, {
        expiresAt: new Date(expiresAt).toISOString(),
      });
      const client = track(await open(t, k));
      const { reason } = await revoked(client, Date.now(), 5000);
      assert.ok(Date.now() >= expiresAt, 'not before the expiry');
      assert.match(reason, /expired/);
      assert.deepEqual(await refusedCode(t, k), [401, 'API_KEY_EXPIRED']);
    });
  });
}

const PG_SKIP = process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set';
describe('stream revocation across two nodes on one PostgreSQL database', { skip: PG_SKIP }, () => {
  let database: TestDatabase;
  let a: StreamTestApp;
  let b: StreamTestApp;
  const clients: SseClient[] = [];
  let next = 0;

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

  const scenarios: {
    name: string;
    change: (admin: ReturnType<typeof adminOf>, k: TestKey) => Promise<unknown>;
    refused?: [number, string];
  }[] = [
    {
      name: 'a key disabled',
      change: async (admin, k) => admin.call('PATCH', `/admin/keys/${await admin.keyIdOf(k)}`, { enabled: false }),
      refused: [401, 'API_KEY_DISABLED'],
    },
    {
      name: 'a key deleted',
      change: async (admin, k) => admin.call('DELETE', `/admin/keys/${await admin.keyIdOf(k)}`),
      refused: [401, 'INVALID_API_KEY'],
    },
    {
      name: 'a user demoted',
      change: (admin, k) =>
        admin.call('PATCH', `/admin/users/${encodeURIComponent(k.userId)}`, { primaryRole: 'user' }),
    },
    {
      name: 'a user deleted',
      change: (admin, k) => admin.call('DELETE', `/admin/users/${encodeURIComponent(k.userId)}`),
      refused: [401, 'INVALID_API_KEY'],
    },
  ];
  for (const scenario of scenarios) {
    it(`ends the other node's stream within a second of ${scenario.name}`, async () => {
      const k = await a.key('editor', `two-nodes-${next++}`);
      const adminA = adminOf(a);
      const keyId = await adminA.keyIdOf(k);
      assert.ok(keyId);
      const client = await open(b, k);
      clients.push(client);
      const since = Date.now();
      await scenario.change(adminA, k);
      const { elapsedMs } = await revoked(client, since);
      assert.ok(elapsedMs < REVOCATION_BOUND_MS + SLACK_MS, `revoked on the other node after ${elapsedMs} ms`);
      if (scenario.refused) assert.deepEqual(await refusedCode(b, k), scenario.refused);
    });
  }
});
