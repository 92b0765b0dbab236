// Reloading the hooks file (POST /admin/reload, SIGHUP) replaces the hooks in force; a file that does
// not load is refused with its error and the old hooks keep running. Two nodes on one PostgreSQL
// database each load the same file.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { reloadOnHangup } from '../../src/server.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { hooksModule, startHooksApp, type HooksApp } from './hooks-app.ts';

const version = (tag: string) =>
  hooksModule(
    `{ articles: { beforeCreate({ values }) { values.slug = ${JSON.stringify(tag)} + '-' + values.title; } } }`,
  );

async function slugOf(t: HooksApp, auth: string, title: string): Promise<string> {
  const response = await t.request({ method: 'POST', url: '/v1/articles', auth, payload: { title } });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().data.attributes.slug as string;
}

for (const dialect of testDialects()) {
  describe(`reloading hooks (${dialect})`, () => {
    let t: HooksApp;
    let user: string;
    before(async () => {
      t = await startHooksApp(dialect, version('v1'));
      user = await t.as('user', 'reload-user');
    });
    after(async () => {
      await t.close();
    });

    it('POST /admin/reload loads the file again and replaces the hooks', async () => {
      assert.equal(await slugOf(t, user, 'a'), 'v1-a');
      t.writeHooks(version('v2'));
      const reload = await t.request({ method: 'POST', url: '/admin/reload', auth: t.admin });
      assert.equal(reload.statusCode, 200, reload.body);
      assert.match(reload.json().meta.hooks, /svc\.hooks\.mjs$/);
      assert.equal(await slugOf(t, user, 'b'), 'v2-b');
    });

    it('a file that does not load is refused with its error; the hooks in force stay', async () => {
      t.writeHooks('export default {{ not javascript');
      const broken = await t.request({ method: 'POST', url: '/admin/reload', auth: t.admin });
      assert.equal(broken.statusCode, 400, broken.body);
      assert.equal(broken.json().errors[0].code, 'BAD_REQUEST');
      assert.match(broken.json().errors[0].detail, /svc\.hooks\.mjs: cannot be loaded/);
      assert.equal(await slugOf(t, user, 'c'), 'v2-c');

      t.writeHooks(hooksModule(`{ articls: { beforeCreate() {} }, articles: { beforeCreat() {} } }`));
      const misnamed = await t.request({ method: 'POST', url: '/admin/reload', auth: t.admin });
      assert.equal(misnamed.statusCode, 400);
      assert.match(misnamed.json().errors[0].detail, /'articls': no such resource/);
      assert.match(misnamed.json().errors[0].detail, /beforeCreat: not a hook/);
      assert.equal(await slugOf(t, user, 'd'), 'v2-d');
    });

    it('SIGHUP reloads the file the same way', async () => {
      t.writeHooks(version('v3'));
      const before = process.listeners('SIGHUP');
      reloadOnHangup(
        { app: t.app, ctx: t.ctx, url: '', host: '127.0.0.1', close: async () => {} },
        async () => t.ctx.config,
      );
      const added = process.listeners('SIGHUP').filter((listener) => !before.includes(listener));
      try {
        process.kill(process.pid, 'SIGHUP');
        const deadline = Date.now() + 60_000;
        while (!t.logs.some((entry) => entry.msg === 'hooks reloaded')) {
          assert.ok(Date.now() < deadline, 'the reload finishes');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        for (const listener of added) process.off('SIGHUP', listener);
      }
      assert.equal(await slugOf(t, user, 'e'), 'v3-e');
    });

    it('SIGHUP with a file that does not load: refused in one log line naming the error, the hooks in force stay', async () => {
      t.writeHooks('export default {{ not javascript');
      const before = process.listeners('SIGHUP');
      const logged = t.logs.length;
      reloadOnHangup(
        { app: t.app, ctx: t.ctx, url: '', host: '127.0.0.1', close: async () => {} },
        async () => t.ctx.config,
      );
      const added = process.listeners('SIGHUP').filter((listener) => !before.includes(listener));
      const failure = () =>
        t.logs.slice(logged).find((entry) => String(entry.msg).startsWith('reloading the config failed'));
      try {
        process.kill(process.pid, 'SIGHUP');
        const deadline = Date.now() + 60_000;
        while (!failure()) {
          assert.ok(Date.now() < deadline, 'the reload is refused');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        for (const listener of added) process.off('SIGHUP', listener);
      }
      // One JSON object per line (the app's log stream parsed each line), with the reason in it.
      assert.match(JSON.stringify(failure()), /svc\.hooks\.mjs: cannot be loaded/);
      assert.ok(!t.logs.slice(logged).some((entry) => entry.msg === 'hooks reloaded'));
      assert.equal(await slugOf(t, user, 'f'), 'v3-f');
    });
  });
}

if (testDialects().includes('postgres')) {
  describe('two nodes on one PostgreSQL database, each loading the same hooks file', () => {
    let first: HooksApp;
    let second: HooksApp;
    before(async () => {
      first = await startHooksApp(
        'postgres',
        hooksModule(`{ articles: { beforeCreate({ values }) {
          if (values.title === 'refuse') throw new ApiError(422, 'TITLE_REFUSED', 'Not this title', { pointer: '/data/attributes/title' });
          values.slug = 'shared-' + values.title;
        } } }`),
      );
      second = await startHooksApp('postgres', '', { sharing: first });
    });
    after(async () => {
      await second.close();
      await first.close();
    });

    it("runs the hooks on either node's writes", async () => {
      const onFirst = await first.as('user', 'node-user-1');
      const onSecond = await second.as('user', 'node-user-2');
      assert.equal(await slugOf(first, onFirst, 'one'), 'shared-one');
      assert.equal(await slugOf(second, onSecond, 'two'), 'shared-two');
      const read = await second.request({ method: 'GET', url: '/v1/articles', auth: onSecond });
      assert.equal(read.statusCode, 200, read.body);
      assert.deepEqual(
        read
          .json()
          .data.map((record: { attributes: { slug: string } }) => record.attributes.slug)
          .sort(),
        ['shared-one', 'shared-two'],
      );
    });

    it('refuses on either node as the hook says, with its status, code and pointer, and stores nothing', async () => {
      for (const [node, userId] of [
        [first, 'node-user-1'],
        [second, 'node-user-2'],
      ] as const) {
        const auth = await node.as('user', userId);
        const response = await node.request({
          method: 'POST',
          url: '/v1/articles',
          auth,
          payload: { title: 'refuse' },
        });
        assert.equal(response.statusCode, 422, response.body);
        const [error] = response.json().errors;
        assert.equal(error.code, 'TITLE_REFUSED');
        assert.equal(error.source.pointer, '/data/attributes/title');
      }
      const read = await second.request({
        method: 'GET',
        url: '/v1/articles?title=refuse',
        auth: await second.as('user', 'node-user-2'),
      });
      assert.deepEqual(read.json().data, []);
    });
  });
}
