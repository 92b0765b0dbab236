// A stream takes the list's filters (`field=value`, `field__op=`, `_filter`) and applies them with the
// before/after rule: a record that starts to match arrives as `created`, one that stops as `deleted`,
// changes outside the filter not at all; a replay after Last-Event-ID applies the same filter. Filters on
// fields the caller cannot read are refused (no oracle), and equal filters share one view.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KeyPrincipal } from '../../src/model/principal.ts';
import { resolveAccess } from '../../src/permissions/resolve-access.ts';
import { createEventView } from '../../src/stream/event-view.ts';
import { parseStreamQuery } from '../../src/stream/stream-query.ts';
import { DEFAULT_FILTER_LIMITS } from '../../src/query/filter-limits.ts';
import { DEFAULT_LIKE_PATTERN_LIMITS } from '../../src/query/like-pattern-limits.ts';
import { SseClient, type SseBlock } from '../helpers/sse-client.ts';
import { startStreamTestApp, type StreamTestApp } from '../helpers/stream-test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

interface Payload {
  old: Record<string, unknown> | null;
  new: Record<string, unknown> | null;
}
const NO_PAYLOAD: Payload = { old: null, new: null };
const payloadOf = (block: SseBlock): Payload =>
  block.data === undefined ? NO_PAYLOAD : (JSON.parse(block.data) as Payload);
const titleOf = (block: SseBlock) => String((payloadOf(block).new ?? payloadOf(block).old)?.title);
const PUBLISHED = encodeURIComponent(
  JSON.stringify({ _or: [{ status: { eq: 'published' } }, { title: { like: 'marker%' } }] }),
);

for (const dialect of testDialects()) {
  describe(`filtered streams (${dialect})`, () => {
    let t: StreamTestApp;
    const clients: SseClient[] = [];
    let next = 0;

    const connect = async (
      query: string,
      authorization = t.editor.authorization,
      headers: Record<string, string> = {},
    ) => {
      const client = await SseClient.connect(`${t.baseUrl}/v1/posts/stream?${query}`, {
        headers: { authorization, ...headers },
      });
      clients.push(client);
      assert.equal(client.status, 200, client.status === 200 ? '' : await client.body());
      await client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
      return client;
    };
    const refused = async (query: string, authorization = t.editor.authorization) => {
      const response = await fetch(`${t.baseUrl}/v1/posts/stream?${query}`, { headers: { authorization } });
      const document = (await response.json()) as {
        errors: { code: string; source?: { parameter?: string }; meta?: { pointer?: string } }[];
      };
      assert.equal(response.status, 400, JSON.stringify(document));
      return document.errors[0]!;
    };
    /** A post every filter below admits, written last: once it arrives, every earlier event has too. */
    const marker = async (client: SseClient) => {
      const title = `marker ${next++}`;
      await t.createPost({ title, status: 'draft' });
      await client.waitFor((b) => b.event === 'posts.created' && payloadOf(b).new?.title === title, { what: title });
      return client.events.filter((b) => !titleOf(b).startsWith('marker'));
    };

    before(async () => {
      t = await startStreamTestApp({ dialect, stream: { replayWindow: 1000 } });
    });
    after(async () => {
      for (const client of clients) client.close();
      await t.close();
    });

    it('sends a record entering the filter as created, leaving it as deleted, and nothing outside it', async () => {
      const client = await connect(`_filter=${PUBLISHED}`);
      const id = await t.createPost({ title: 'P1', status: 'draft' });
      await t.patchPost(id, { body: 'still a draft' });
      await t.patchPost(id, { status: 'published' });
      await t.patchPost(id, { body: 'published edit' });
      await t.patchPost(id, { status: 'draft' });
      await t.patchPost(id, { body: 'hidden again' });
      await t.deletePost(id);
      const events = await marker(client);
      assert.deepEqual(
        events.map((e) => e.event),
        ['posts.created', 'posts.updated', 'posts.deleted'],
      );
      assert.equal(payloadOf(events[1]!).new?.body, 'published edit');
      assert.equal(payloadOf(events[2]!).new, null);
      assert.equal(
        events.some((e) => e.raw.includes('hidden again')),
        false,
      );
    });

    it('takes field=value and field__op parameters, ANDed with _filter', async () => {
      const both = await connect(`title__like=${encodeURIComponent('k%')}&_filter=${PUBLISHED}`);
      const exact = await connect('title=kept&status=published');
      await t.createPost({ title: 'kept', status: 'published' });
      await t.createPost({ title: 'kept', status: 'draft' });
      await t.createPost({ title: 'other', status: 'published' });
      await t.createPost({ title: 'keen', status: 'published' });
      await t.createPost({ title: 'marker-k', status: 'draft' });
      await both.waitFor((b) => titleOf(b) === 'keen', { what: 'keen' });
      const marked = await t.createPost({ title: 'kept', status: 'published', body: 'last' });
      await exact.waitFor((b) => payloadOf(b).new?.id === marked, { what: 'the last kept' });
      await both.waitFor((b) => payloadOf(b).new?.id === marked, { what: 'the last kept' });
      assert.deepEqual(both.events.map(titleOf), ['kept', 'keen', 'kept']);
      assert.deepEqual(exact.events.map(titleOf), ['kept', 'kept']);
    });

    it('applies the filter to the replay after Last-Event-ID', async () => {
      const first = await connect(`_filter=${PUBLISHED}`);
      await t.createPost({ title: 'R0', status: 'published' });
      const seen = await first.waitFor((b) => titleOf(b) === 'R0', { what: 'R0' });
      first.close();
      const id = await t.createPost({ title: 'R1', status: 'draft' });
      await t.createPost({ title: 'R2', status: 'published' });
      await t.patchPost(id, { status: 'published' });
      await t.createPost({ title: 'R3', status: 'draft' });
      const resumed = await connect(`_filter=${PUBLISHED}`, t.editor.authorization, { 'last-event-id': seen.id! });
      const events = await marker(resumed);
      assert.deepEqual(
        events.map((e) => `${e.event} ${titleOf(e)}`),
        ['posts.created R2', 'posts.created R1'],
      );
    });

    it('refuses filters on fields the caller cannot read, in any spelling (no oracle)', async () => {
      const reader = await t.key('user', `reader-${dialect}`);
      const direct = await refused('secret=x', reader.authorization);
      assert.equal(direct.code, 'INVALID_FIELDS');
      assert.equal(direct.source?.parameter, 'secret');
      const tree = await refused(
        `_filter=${encodeURIComponent('{"_not":{"secret":{"like":"a%"}}}')}`,
        reader.authorization,
      );
      assert.equal(tree.code, 'INVALID_FIELDS');
      assert.equal(tree.meta?.pointer, '/_not/secret');
      const op = await refused('secret__is_null', reader.authorization);
      assert.equal(op.code, 'INVALID_FIELDS');
    });

    it('answers bad filters and page parameters with 400 naming them', async () => {
      const unknown = await refused(`_filter=${encodeURIComponent('{"__proto__":{"eq":1}}')}`);
      assert.equal(unknown.code, 'INVALID_QUERY_PARAMS');
      assert.equal(unknown.meta?.pointer, '/__proto__');
      const regex = await refused(`_filter=${encodeURIComponent('{"title":{"regex":"(a)\\\\1"}}')}`);
      assert.equal(regex.meta?.pointer, '/title/regex');
      assert.equal((await refused('_sort=title')).source?.parameter, '_sort');
      assert.equal((await refused('views__gte=1')).source?.parameter, 'views__gte');
    });
  });
}

describe('filtered stream views', () => {
  let t: StreamTestApp;
  before(async () => {
    t = await startStreamTestApp();
  });
  after(async () => {
    await t.close();
  });

  it('share one view between streams with equal filters and keep distinct filters apart', () => {
    const posts = t.ctx.registry.require('posts');
    const principal: KeyPrincipal = { kind: 'key', keyId: 'k', userId: 'u', role: 'editor', keyPermissions: null };
    const grant = resolveAccess(posts, principal, 'read');
    const view = (raw: Record<string, string>) => {
      const query = parseStreamQuery(raw, undefined, posts, grant.fields, {
        vars: { userId: 'u', role: 'editor' },
        limits: DEFAULT_FILTER_LIMITS,
        likeLimits: DEFAULT_LIKE_PATTERN_LIMITS,
      });
      return createEventView(posts, grant, query);
    };
    const published = { _filter: '{"status":{"eq":"published"}}' };
    assert.equal(view(published), view({ ...published }));
    assert.equal(view({ status: 'published' }), view({ status: 'published' }));
    assert.notEqual(view(published), view({ _filter: '{"status":{"eq":"draft"}}' }));
    assert.notEqual(view(published), view({}));
    assert.equal(view({}), view({}));
  });
});
