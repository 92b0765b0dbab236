// meta.can: {update, delete} on each record for callers whose update or delete rule has a row filter,
// worked out in memory from the rows a read has (no query per row): right per user even when two users
// share a cached page, right when the filter's field is neither readable nor asked for, absent when the
// rights are the same on every row, and part of the ETag a write's If-Match compares.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { BLOG_RESOURCES } from '../helpers/test-config.ts';

interface Doc {
  id: string;
  attributes: Record<string, unknown>;
  meta?: { can: { update: boolean; delete: boolean } };
}

for (const dialect of testDialects()) {
  describe(`meta.can (${dialect})`, () => {
    let t: TestApp;
    let alice: string;
    let bob: string;
    let editor: string;
    const ids: Record<string, string> = {};
    before(async () => {
      t = await startTestApp(dialect, {
        resources: {
          ...BLOG_RESOURCES,
          // Everyone reads every task, but not who owns it; only the owner may change or delete one.
          tasks: {
            fields: { title: { type: 'string', sortable: true }, owner: { type: 'string' } },
            permissions: {
              editor: { read: true, create: true, update: true, delete: true },
              user: {
                read: { fields: ['title'] },
                create: { fields: ['title'], preset: { owner: '$userId' } },
                update: { fields: ['title'], filter: { owner: { eq: '$userId' } } },
                delete: { filter: { _and: [{ owner: { eq: '$userId' } }, { _not: { title: { like: 'keep%' } } }] } },
              },
            },
          },
        },
      });
      alice = await t.as('user', 'alice');
      bob = await t.as('user', 'bob');
      editor = await t.as('editor');
      for (const [name, auth, title] of [
        ['alice', alice, 'a: alice'],
        ['aliceKept', alice, 'keep: alice'],
        ['bob', bob, 'b: bob'],
      ] as const) {
        const created = await t.request({ method: 'POST', url: '/v1/tasks', auth, payload: { title } });
        assert.equal(created.statusCode, 201, created.body);
        ids[name] = created.json().data.id;
      }
    });
    after(() => t.close());

    const list = async (auth: string, query = '') => {
      const response = await t.request({ method: 'GET', url: `/v1/tasks?_sort=title${query}`, auth });
      assert.equal(response.statusCode, 200, response.body);
      return response.json().data as Doc[];
    };
    const canOf = (docs: Doc[]) => Object.fromEntries(docs.map((d) => [d.attributes.title, d.meta?.can]));

    it('tells each user which rows they may update and delete, though both read the same cached page', async () => {
      assert.deepEqual(canOf(await list(alice)), {
        'a: alice': { update: true, delete: true },
        'b: bob': { update: false, delete: false },
        'keep: alice': { update: true, delete: false },
      });
      // Same rows, same SQL, same cached page: bob's rights, not alice's.
      assert.deepEqual(canOf(await list(bob)), {
        'a: alice': { update: false, delete: false },
        'b: bob': { update: true, delete: true },
        'keep: alice': { update: false, delete: false },
      });
      assert.deepEqual(canOf(await list(alice)), canOf(await list(alice)), 'stable when reused');
    });

    it('reads the filter field without showing it, with sparse fieldsets too', async () => {
      const docs = await list(alice, '&fields[tasks]=title');
      for (const doc of docs)
        assert.deepEqual(Object.keys(doc.attributes).sort(), ['created_at', 'title', 'updated_at']);
      assert.equal(canOf(docs)['a: alice']?.update, true);
      const one = await t.request({ method: 'GET', url: `/v1/tasks/${ids.bob}`, auth: alice });
      assert.deepEqual(one.json().data.meta, { can: { update: false, delete: false } });
      assert.equal(one.json().data.attributes.owner, undefined);
    });

    it('agrees with what the API then does', async () => {
      for (const doc of await list(alice)) {
        const patched = await t.request({
          method: 'PATCH',
          url: `/v1/tasks/${doc.id}`,
          auth: alice,
          payload: { title: doc.attributes.title },
        });
        assert.equal(patched.statusCode === 200, doc.meta!.can.update, `${doc.attributes.title}: ${patched.body}`);
      }
    });

    it('is left out when the rights are the same on every row (editor, admin)', async () => {
      for (const doc of await list(editor)) assert.equal(doc.meta, undefined);
      for (const doc of await list(t.admin)) assert.equal(doc.meta, undefined);
      const one = await t.request({ method: 'GET', url: `/v1/tasks/${ids.bob}`, auth: editor });
      assert.equal(one.json().data.meta, undefined);
    });

    it('is in the answers of writes and in the ETag that If-Match compares', async () => {
      const created = await t.request({ method: 'POST', url: '/v1/tasks', auth: alice, payload: { title: 'c: new' } });
      assert.deepEqual(created.json().data.meta, { can: { update: true, delete: true } });
      const read = await t.request({ method: 'GET', url: `/v1/tasks/${created.json().data.id}`, auth: alice });
      const tag = read.headers.etag as string;
      assert.ok(tag);
      const patched = await t.request({
        method: 'PATCH',
        url: `/v1/tasks/${created.json().data.id}`,
        auth: alice,
        payload: { title: 'c: changed' },
        headers: { 'if-match': tag },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.deepEqual(patched.json().data.meta, { can: { update: true, delete: true } });
    });

    it('is on posts for a user, whose read filter and update filter differ', async () => {
      const post = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: alice,
        payload: { title: 'mine', status: 'published' },
      });
      assert.equal(post.statusCode, 201, post.body);
      const seenByBob = await t.request({ method: 'GET', url: `/v1/posts/${post.json().data.id}`, auth: bob });
      assert.deepEqual(seenByBob.json().data.meta, { can: { update: false, delete: false } });
    });
  });
}
