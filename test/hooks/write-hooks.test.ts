// Hooks inside the write's transaction, through HTTP on SQLite and PostgreSQL: a derived value, a
// refusal with a pointer, writes to other resources in the same transaction (rolled back with it), an
// unexpected exception, a slow hook, what a hook can see, after-commit hooks and their failure metric.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { testDialects } from '../helpers/test-databases.ts';
import { hooksModule, startHooksApp, type HooksApp } from './hooks-app.ts';

const HOOKS = hooksModule(`{
  articles: {
    async beforeCreate({ values, caller, records, resource, previous }) {
      globalThis.__hookSeen?.push({ caller, records, resource, previous, keys: Object.keys(arguments[0]).sort(), accessorKeys: Object.keys(records('articles')).sort() });
      values.slug ??= values.title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      if (values.title === 'boom') {
        globalThis.__boomRuns = (globalThis.__boomRuns ?? 0) + 1;
        throw new Error('kaboom in a hook');
      }
      if (values.title === 'bad type') values.slug = 42;
      if (values.title === 'slow') {
        await globalThis.__slowGate;
        // Past the time limit the write is gone; a call now is refused.
        globalThis.__lateCall = records('articles').create({ title: 'late' }).then(() => 'written', (error) => error.message);
      }
    },
    async beforeUpdate({ values, previous }) {
      if (values.title !== undefined && previous.slug === 'locked') throw new ApiError(409, 'ARTICLE_LOCKED', 'This article is locked', { pointer: '/data/attributes/title' });
      if (values.title !== undefined) values.slug = values.title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    },
    async beforeDelete({ previous, caller }) {
      globalThis.__deleteCaller = caller;
      if (previous.slug === 'keep') throw new ApiError(403, 'KEEP_ARTICLE', 'Articles with slug keep stay');
    },
    async afterCreate({ event, caller }) {
      if (event.data.new.title === 'after fails') throw new Error('after hook failed');
      globalThis.__afterEvents?.push({ event, caller });
    },
  },
  orders: {
    async beforeCreate({ values, records, caller }) {
      const product = await records('products').get(values.product_id);
      if (product.stock < values.quantity) {
        throw new ApiError(422, 'OUT_OF_STOCK', 'Only ' + product.stock + ' left', { pointer: '/data/attributes/quantity' });
      }
      await records('products').update(product.id, { stock: product.stock - values.quantity });
      await records('audit', { as: 'system' }).create({ message: 'order of ' + values.quantity + ' by ' + caller.userId });
      if (values.note === 'fail after the writes') throw new Error('failure after writing two other resources');
      if (values.note === 'audit as caller') await records('audit').create({ message: 'not allowed' });
    },
  },
}`);

declare global {
  var __hookSeen: Record<string, unknown>[] | undefined;
  var __afterEvents: { event: Record<string, unknown>; caller: unknown }[] | undefined;
  var __slowGate: Promise<void> | undefined;
  var __lateCall: Promise<string> | undefined;
  var __deleteCaller: unknown;
  var __boomRuns: number | undefined;
}

async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 2000; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`gave up waiting for ${what}`);
}

for (const dialect of testDialects()) {
  describe(`write hooks (${dialect})`, () => {
    let t: HooksApp;
    let user: string;
    before(async () => {
      t = await startHooksApp(dialect, HOOKS, { hookTimeoutMs: 400 });
      user = await t.as('user', 'hook-user-1');
    });
    after(async () => {
      await t.close();
    });

    const create = (resource: string, attributes: Record<string, unknown>, auth = user) =>
      t.request({ method: 'POST', url: `/v1/${resource}`, auth, payload: attributes });
    const count = async (table: string) =>
      Number(
        (await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(t.ctx.store.db)).rows[0]!.n,
      );
    const eventCount = async (resource: string) =>
      Number(
        (
          await sql<{ n: number }>`select count(*) as n from svc_events where resource = ${resource}`.execute(
            t.ctx.store.db,
          )
        ).rows[0]!.n,
      );

    it('derives a value before the write, stored and in the event', async () => {
      const response = await create('articles', { title: 'Hello Hooks World' });
      assert.equal(response.statusCode, 201, response.body);
      const created = response.json().data;
      assert.equal(created.attributes.slug, 'hello-hooks-world');
      const row = await sql<{ slug: string }>`select slug from articles where id = ${created.id}`.execute(
        t.ctx.store.db,
      );
      assert.equal(row.rows[0]!.slug, 'hello-hooks-world');
      const events = await sql<{
        payload: string;
      }>`select payload from svc_events where resource_id = ${created.id}`.execute(t.ctx.store.db);
      assert.match(String(events.rows[0]!.payload), /hello-hooks-world/);
    });

    it('changes on update are validated again and derived again', async () => {
      const id = (await create('articles', { title: 'First' })).json().data.id;
      const patched = await t.request({
        method: 'PATCH',
        url: `/v1/articles/${id}`,
        auth: user,
        payload: { title: 'Second Title' },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.equal(patched.json().data.attributes.slug, 'second-title');
    });

    it('checks the values a hook leaves against the field types (400 with the pointer), storing nothing', async () => {
      const before = await count('articles');
      const response = await create('articles', { title: 'bad type' });
      assert.equal(response.statusCode, 400, response.body);
      const error = response.json().errors[0];
      assert.equal(error.code, 'INVALID_RESOURCE_DATA');
      assert.equal(error.source.pointer, '/data/attributes/slug');
      assert.equal(await count('articles'), before);
    });

    it('a refusal answers its status, code, detail and pointer; nothing is stored, no event', async () => {
      const locked = (await create('articles', { title: 'Locked one', slug: 'locked' })).json().data;
      const events = await eventCount('articles');
      const response = await t.request({
        method: 'PATCH',
        url: `/v1/articles/${locked.id}`,
        auth: user,
        payload: { title: 'Changed' },
      });
      assert.equal(response.statusCode, 409, response.body);
      assert.deepEqual(response.json().errors, [
        {
          status: '409',
          code: 'ARTICLE_LOCKED',
          title: 'Refused',
          detail: 'This article is locked',
          source: { pointer: '/data/attributes/title' },
        },
      ]);
      assert.equal(
        (await t.request({ method: 'GET', url: `/v1/articles/${locked.id}`, auth: user })).json().data.attributes.title,
        'Locked one',
      );
      assert.equal(await eventCount('articles'), events);

      const kept = (await create('articles', { title: 'Kept', slug: 'keep' })).json().data;
      const refusedDelete = await t.request({ method: 'DELETE', url: `/v1/articles/${kept.id}`, auth: user });
      assert.equal(refusedDelete.statusCode, 403);
      assert.equal(refusedDelete.json().errors[0].code, 'KEEP_ARTICLE');
      assert.equal((await t.request({ method: 'GET', url: `/v1/articles/${kept.id}`, auth: user })).statusCode, 200);
    });

    it('writes other resources in the same transaction, as the caller and as the system, each with its event', async () => {
      const product = (await create('products', { name: 'Widget', stock: 5 })).json().data;
      const auditEvents = await eventCount('audit');
      const productEvents = await eventCount('products');
      const order = await create('orders', { product_id: product.id, quantity: 2 });
      assert.equal(order.statusCode, 201, order.body);
      assert.equal(
        (await t.request({ method: 'GET', url: `/v1/products/${product.id}`, auth: user })).json().data.attributes
          .stock,
        3,
      );
      const audit = await sql<{ message: string }>`select message from audit`.execute(t.ctx.store.db);
      assert.ok(audit.rows.some((row) => row.message === 'order of 2 by hook-user-1'));
      assert.equal(await eventCount('audit'), auditEvents + 1);
      assert.equal(await eventCount('products'), productEvents + 1);

      const short = await create('orders', { product_id: product.id, quantity: 4 });
      assert.equal(short.statusCode, 422, short.body);
      assert.deepEqual(short.json().errors[0], {
        status: '422',
        code: 'OUT_OF_STOCK',
        title: 'Refused',
        detail: 'Only 3 left',
        source: { pointer: '/data/attributes/quantity' },
      });
    });

    it('a failure after the hook wrote two other resources rolls all of it back: no rows, no events', async () => {
      const product = (await create('products', { name: 'Gadget', stock: 10 })).json().data;
      const [orders, audits, events] = [await count('orders'), await count('audit'), await eventCount('products')];
      const response = await create('orders', { product_id: product.id, quantity: 3, note: 'fail after the writes' });
      assert.equal(response.statusCode, 500, response.body);
      assert.equal(response.json().errors[0].code, 'HOOK_FAILED');
      assert.equal(
        (await t.request({ method: 'GET', url: `/v1/products/${product.id}`, auth: user })).json().data.attributes
          .stock,
        10,
      );
      assert.equal(await count('orders'), orders);
      assert.equal(await count('audit'), audits);
      assert.equal(await eventCount('products'), events);
    });

    it("a hook's write as the caller has the caller's permissions: refused, and nothing stored", async () => {
      const product = (await create('products', { name: 'Thing', stock: 10 })).json().data;
      const audits = await count('audit');
      const response = await create('orders', { product_id: product.id, quantity: 1, note: 'audit as caller' });
      assert.equal(response.statusCode, 403, response.body);
      assert.equal(response.json().errors[0].code, 'FORBIDDEN');
      assert.equal(await count('audit'), audits);
      assert.equal(
        (await t.request({ method: 'GET', url: `/v1/products/${product.id}`, auth: user })).json().data.attributes
          .stock,
        10,
      );
    });

    it('an unexpected exception rolls back and answers 500 with the request id; the stack is in the log only', async () => {
      const before = await count('articles');
      const response = await t.request({
        method: 'POST',
        url: '/v1/articles',
        auth: user,
        payload: { title: 'boom' },
        headers: { 'x-request-id': 'hook-boom-1' },
      });
      assert.equal(response.statusCode, 500);
      const body = response.body;
      assert.equal(response.json().errors[0].code, 'HOOK_FAILED');
      assert.match(body, /hook-boom-1/);
      assert.doesNotMatch(body, /kaboom|at .*\.mjs/);
      assert.equal(await count('articles'), before);
      const line = t.logs.find((entry) => entry.reqId === 'hook-boom-1' && entry.err !== undefined) as
        | { err: { stack: string } }
        | undefined;
      assert.ok(line, 'the failure is logged');
      assert.match(line.err.stack, /kaboom in a hook/);
    });

    it('a hook running longer than server.hookTimeoutMs is refused with 503; the write rolls back and a late call is refused', async () => {
      let release!: () => void;
      globalThis.__slowGate = new Promise((resolve) => (release = resolve));
      const before = await count('articles');
      const response = await create('articles', { title: 'slow' });
      assert.equal(response.statusCode, 503, response.body);
      assert.equal(response.json().errors[0].code, 'HOOK_TIMEOUT');
      release();
      const late = await waitFor(() => globalThis.__lateCall, 'the late call');
      assert.match(await late, /after the hook was over/);
      assert.equal(await count('articles'), before);
      // Other writes go on.
      assert.equal((await create('articles', { title: 'after slow' })).statusCode, 201);
      globalThis.__lateCall = undefined;
    });

    it('hooks see the caller (user, role, key id) and no secret: no token, key secret or password hash', async () => {
      globalThis.__hookSeen = [];
      const response = await create('articles', { title: 'Seen' });
      assert.equal(response.statusCode, 201);
      const seen = globalThis.__hookSeen[0]!;
      globalThis.__hookSeen = undefined;
      assert.deepEqual(seen.keys, ['caller', 'previous', 'records', 'resource', 'values']);
      assert.deepEqual(seen.accessorKeys, ['create', 'delete', 'get', 'list', 'update']);
      const caller = seen.caller as Record<string, unknown>;
      assert.deepEqual(Object.keys(caller).sort(), ['keyId', 'role', 'userId']);
      assert.equal(caller.userId, 'hook-user-1');
      assert.equal(caller.role, 'user');
      const secret = user.slice('Bearer '.length);
      const everything = JSON.stringify(seen, (_key, value: unknown) =>
        typeof value === 'function' ? String(value) : value,
      );
      assert.ok(!everything.includes(secret), 'the key secret');
      assert.ok(!everything.includes(t.admin.slice('Bearer '.length)), 'the admin token');
      assert.doesNotMatch(everything, /scrypt|password|\$argon|hash/i);
      // The admin token's delete: the caller is { admin: true }, without the token.
      const id = response.json().data.id;
      assert.equal((await t.request({ method: 'DELETE', url: `/v1/articles/${id}`, auth: t.admin })).statusCode, 204);
      assert.deepEqual(globalThis.__deleteCaller, { admin: true });
    });

    it('after-commit hooks get the event and the caller; a failing one is logged and counted, the write stays', async () => {
      globalThis.__afterEvents = [];
      const created = (await create('articles', { title: 'After' })).json().data;
      const heard = await waitFor(
        () =>
          globalThis.__afterEvents!.find((entry) => (entry.event as { resourceId: string }).resourceId === created.id),
        'the after hook',
      );
      assert.equal(heard.event.type, 'articles.created');
      assert.equal((heard.caller as { userId: string }).userId, 'hook-user-1');
      globalThis.__afterEvents = undefined;

      const failing = await create('articles', { title: 'after fails' });
      assert.equal(failing.statusCode, 201);
      assert.equal(
        (await t.request({ method: 'GET', url: `/v1/articles/${failing.json().data.id}`, auth: user })).statusCode,
        200,
      );
      const metric = await waitFor(async () => {
        const text = (await t.request({ method: 'GET', url: '/metrics', auth: t.admin })).body;
        return /svc_hook_failures_total\{hook="afterCreate",resource="articles"\} 1/.test(text) ? text : undefined;
      }, 'the failure metric');
      assert.ok(metric);
      assert.ok(t.logs.some((entry) => entry.msg === 'an after-commit hook failed; the write stays'));
    });

    if (dialect === 'sqlite') {
      it("in a group commit, a hook's failure rolls back only its own write, and a rerun applies the others' hook writes once", async () => {
        const product = (await create('products', { name: 'Grouped', stock: 100 })).json().data;
        const audits = await count('audit');
        const articles = await count('articles');
        globalThis.__boomRuns = 0;
        // One turn: the writes share a group; the failing one sits between the others.
        const responses = await Promise.all([
          create('articles', { title: 'Group A' }),
          create('orders', { product_id: product.id, quantity: 7 }),
          create('articles', { title: 'boom' }),
          create('orders', { product_id: product.id, quantity: 500 }),
          create('articles', { title: 'Group B' }),
        ]);
        assert.deepEqual(
          responses.map((response) => response.statusCode),
          [201, 201, 500, 422, 201],
        );
        assert.equal(await count('articles'), articles + 2);
        assert.equal(await count('audit'), audits + 1);
        assert.equal(
          (await t.request({ method: 'GET', url: `/v1/products/${product.id}`, auth: user })).json().data.attributes
            .stock,
          93,
        );
        // The failing hook's write is its own failure: the group's second run does not run it again.
        assert.equal(globalThis.__boomRuns, 1);
      });
    }
  });
}
