// Conditional requests (docs/records.md): a strong ETag per view on GET of a record and of a list,
// If-None-Match → 304, If-Match on PUT, PATCH and DELETE → 412 PRECONDITION_FAILED when the record as
// the caller sees it changed, judged inside the write so that no other write slips in between.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { EVENTS_TABLE } from '../../src/events/outbox.ts';

const STRONG_TAG = /^"[A-Za-z0-9_-]{43}"$/;
const MISSING_ID = '0190a0c0-0000-7000-8000-000000000000';

/** Both write paths: as configured, and with a hook that writes with each event, which makes every write a transaction. */
const WRITE_PATHS = [
  { name: 'as configured', hooked: false },
  { name: 'in a transaction (a hook writes with each event)', hooked: true },
] as const;

for (const dialect of testDialects()) {
  for (const path of WRITE_PATHS) {
    describe(`conditional requests on ${dialect}, writes ${path.name}`, () => {
      let t: TestApp;
      let editor: string;
      let user: string;

      before(async () => {
        t = await startTestApp(dialect);
        if (path.hooked) t.ctx.records.onEventWritten(async () => {});
        editor = await t.as('editor');
        user = await t.as('user');
      });
      after(() => t.close());

      const create = async (attributes: Record<string, unknown>, auth = editor): Promise<string> => {
        const created = await t.request({ method: 'POST', url: '/v1/posts', auth, payload: attributes });
        assert.equal(created.statusCode, 201, created.body);
        return created.json().data.id as string;
      };
      const get = (id: string, auth = editor, headers: Record<string, string> = {}) =>
        t.request({ method: 'GET', url: `/v1/posts/${id}`, auth, headers });
      const tagOf = async (id: string, auth = editor): Promise<string> => {
        const response = await get(id, auth);
        assert.equal(response.statusCode, 200, response.body);
        return String(response.headers.etag);
      };
      const patch = (id: string, payload: Record<string, unknown>, ifMatch?: string, auth = editor) =>
        t.request({
          method: 'PATCH',
          url: `/v1/posts/${id}`,
          auth,
          payload,
          headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
        });
      const eventsOf = async (id: string): Promise<number> =>
        (await t.ctx.store.db.selectFrom(EVENTS_TABLE).select('id').where('resource_id', '=', id).execute()).length;

      it('gives a record a strong ETag that stays while the record does, and answers If-None-Match naming it with 304 and no body', async () => {
        const id = await create({ title: 'tagged' });
        const first = await get(id);
        const tag = String(first.headers.etag);
        assert.match(tag, STRONG_TAG);
        assert.equal(String((await get(id)).headers.etag), tag);
        for (const ifNoneMatch of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
          const cached = await get(id, editor, { 'if-none-match': ifNoneMatch });
          assert.equal(cached.statusCode, 304, ifNoneMatch);
          assert.equal(cached.body, '');
          assert.equal(cached.headers.etag, tag);
          assert.equal(cached.headers['content-type'], undefined);
        }
        const head = await t.request({
          method: 'HEAD',
          url: `/v1/posts/${id}`,
          auth: editor,
          headers: { 'if-none-match': tag },
        });
        assert.equal(head.statusCode, 304);
        for (const ifNoneMatch of ['"other"', 'not-a-tag', tag.slice(1, -1)]) {
          const full = await get(id, editor, { 'if-none-match': ifNoneMatch });
          assert.equal(full.statusCode, 200, ifNoneMatch);
          assert.equal(full.json().data.id, id);
          assert.equal(full.headers.etag, tag);
        }
      });

      it('tags each view: two roles shown different fields of one row get different tags', async () => {
        const id = await create({ title: 'seen twice', status: 'published', rating: 3 });
        const asEditor = await tagOf(id, editor);
        const asUser = await tagOf(id, user);
        assert.notEqual(asEditor, asUser);
        // A tag from another view matches nothing here: not a 304, and not a write's If-Match.
        assert.equal((await get(id, user, { 'if-none-match': asEditor })).statusCode, 200);
      });

      it('gives a list a strong ETag per page and view, 304 while nothing changed it, a new tag after a write', async () => {
        await create({ title: 'listed', status: 'published' });
        const url = '/v1/posts?status=published&_sort=title';
        const first = await t.request({ method: 'GET', url, auth: editor });
        const tag = String(first.headers.etag);
        assert.match(tag, STRONG_TAG);
        const again = await t.request({ method: 'GET', url, auth: editor, headers: { 'if-none-match': tag } });
        assert.equal(again.statusCode, 304);
        assert.equal(again.body, '');
        assert.equal(again.headers.etag, tag);
        const narrower = await t.request({ method: 'GET', url: `${url}&fields=title`, auth: editor });
        assert.notEqual(narrower.headers.etag, tag);
        const asUser = await t.request({ method: 'GET', url, auth: user });
        assert.notEqual(asUser.headers.etag, tag);
        await create({ title: 'another', status: 'published' });
        const changed = await t.request({ method: 'GET', url, auth: editor, headers: { 'if-none-match': tag } });
        assert.equal(changed.statusCode, 200);
        assert.notEqual(changed.headers.etag, tag);
        assert.match(String(changed.headers.etag), STRONG_TAG);
      });

      it('patches with If-Match of the tag GET gave, answers the new tag, and refuses the stale tag with 412, changing nothing', async () => {
        const id = await create({ title: 'v1' });
        const tag = await tagOf(id);
        const patched = await patch(id, { title: 'v2' }, tag);
        assert.equal(patched.statusCode, 200, patched.body);
        const newTag = String(patched.headers.etag);
        assert.match(newTag, STRONG_TAG);
        assert.notEqual(newTag, tag);
        assert.equal(await tagOf(id), newTag, "the PATCH answer's tag is the one GET gives");
        const events = await eventsOf(id);

        const stale = await patch(id, { title: 'v3' }, tag);
        assert.equal(stale.statusCode, 412, stale.body);
        const [error] = stale.json().errors;
        assert.equal(error.code, 'PRECONDITION_FAILED');
        assert.equal(error.status, '412');
        const after = await get(id);
        assert.equal(after.json().data.attributes.title, 'v2');
        assert.equal(after.headers.etag, newTag);
        assert.equal(await eventsOf(id), events, 'no event for the refused write');

        // With the current tag among others the write goes on.
        assert.equal((await patch(id, { title: 'v3' }, `"other", ${newTag}`)).statusCode, 200);
      });

      it('replaces with If-Match: the current tag goes, a stale or weak one is 412', async () => {
        const id = await create({ title: 'to replace' });
        const tag = await tagOf(id);
        const put = (ifMatch: string) =>
          t.request({
            method: 'PUT',
            url: `/v1/posts/${id}`,
            auth: editor,
            payload: { title: 'replaced' },
            headers: { 'if-match': ifMatch },
          });
        assert.equal((await put(`W/${tag}`)).statusCode, 412, 'If-Match compares strongly');
        const replaced = await put(tag);
        assert.equal(replaced.statusCode, 200, replaced.body);
        assert.equal(replaced.headers.etag, await tagOf(id));
        const stale = await put(tag);
        assert.equal(stale.statusCode, 412);
        assert.equal(stale.json().errors[0].code, 'PRECONDITION_FAILED');
      });

      it('deletes with If-Match only while the tag is current', async () => {
        const id = await create({ title: 'to delete' });
        const tag = await tagOf(id);
        assert.equal((await patch(id, { title: 'changed meanwhile' })).statusCode, 200);
        const events = await eventsOf(id);
        const stale = await t.request({
          method: 'DELETE',
          url: `/v1/posts/${id}`,
          auth: editor,
          headers: { 'if-match': tag },
        });
        assert.equal(stale.statusCode, 412, stale.body);
        assert.equal((await get(id)).statusCode, 200, 'still there');
        assert.equal(await eventsOf(id), events);
        const deleted = await t.request({
          method: 'DELETE',
          url: `/v1/posts/${id}`,
          auth: editor,
          headers: { 'if-match': await tagOf(id) },
        });
        assert.equal(deleted.statusCode, 204, deleted.body);
        assert.equal((await get(id)).statusCode, 404);
      });

      it('takes the admin token’s own tag on a delete', async () => {
        const id = await create({ title: 'admin deletes' });
        const tag = await tagOf(id, t.admin);
        assert.equal(
          (
            await t.request({
              method: 'DELETE',
              url: `/v1/posts/${id}`,
              auth: t.admin,
              headers: { 'if-match': `W/${tag}` },
            })
          ).statusCode,
          412,
        );
        const deleted = await t.request({
          method: 'DELETE',
          url: `/v1/posts/${id}`,
          auth: t.admin,
          headers: { 'if-match': tag },
        });
        assert.equal(deleted.statusCode, 204, deleted.body);
      });

      it('takes If-Match: * as "the record exists": 412 for a record that does not, or that the caller cannot see', async () => {
        const id = await create({ title: 'exists' });
        assert.equal((await patch(id, { title: 'still exists' }, '*')).statusCode, 200);
        assert.equal((await patch(MISSING_ID, { title: 'x' }, '*')).statusCode, 412);
        assert.equal(
          (await patch(MISSING_ID, { title: 'x' })).statusCode,
          404,
          'without If-Match a missing record is 404',
        );
        const draft = await create({ title: 'an editor draft', status: 'draft', author_id: 'someone-else' });
        const hidden = await patch(draft, { title: 'x' }, '*', user);
        assert.equal(hidden.statusCode, 412, hidden.body);
        const deleted = await t.request({
          method: 'DELETE',
          url: `/v1/posts/${MISSING_ID}`,
          auth: editor,
          headers: { 'if-match': '*' },
        });
        assert.equal(deleted.statusCode, 412);
      });

      it('judges If-Match on the caller’s own view: another role’s tag of the same row does not match', async () => {
        const id = await create({ title: 'mine', status: 'published' }, user);
        const editorsTag = await tagOf(id, editor);
        const refused = await patch(id, { title: 'mine, edited' }, editorsTag, user);
        assert.equal(refused.statusCode, 412, refused.body);
        const usersTag = await tagOf(id, user);
        const patched = await patch(id, { title: 'mine, edited' }, usersTag, user);
        assert.equal(patched.statusCode, 200, patched.body);
        assert.equal(patched.headers.etag, await tagOf(id, user));
        assert.equal(
          (await patch(id, { title: 'x' }, 'not-a-tag', user)).statusCode,
          412,
          'a malformed If-Match matches nothing',
        );
      });

      it('lets exactly one of two concurrent PATCHes with the same If-Match through; the other is 412', async () => {
        for (let round = 0; round < 3; round++) {
          const id = await create({ title: `race ${round}` });
          const tag = await tagOf(id);
          const events = await eventsOf(id);
          const answers = await Promise.all([
            patch(id, { title: `first ${round}` }, tag),
            patch(id, { title: `second ${round}` }, tag),
          ]);
          const statuses = answers.map((answer) => answer.statusCode).sort();
          assert.deepEqual(statuses, [200, 412], answers.map((answer) => answer.body).join('\n'));
          const winner = answers.find((answer) => answer.statusCode === 200)!;
          const now = await get(id);
          assert.equal(now.json().data.attributes.title, winner.json().data.attributes.title);
          assert.equal(now.headers.etag, winner.headers.etag);
          assert.equal(await eventsOf(id), events + 1, 'one event: the winner’s');
        }
      });

      it('lets exactly one of two concurrent DELETE and PATCH with the same If-Match through', async () => {
        const id = await create({ title: 'race to delete' });
        const tag = await tagOf(id);
        const answers = await Promise.all([
          t.request({ method: 'DELETE', url: `/v1/posts/${id}`, auth: editor, headers: { 'if-match': tag } }),
          patch(id, { title: 'patched' }, tag),
        ]);
        const succeeded = answers.filter((answer) => answer.statusCode < 300);
        assert.equal(succeeded.length, 1, answers.map((answer) => `${answer.statusCode} ${answer.body}`).join('\n'));
        assert.equal(answers.filter((answer) => answer.statusCode === 412).length, 1);
      });
    });
  }
}
