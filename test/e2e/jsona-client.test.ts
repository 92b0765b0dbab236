// svc used through a second JSON:API library no one here wrote: `jsona` (serialise and deserialise) with
// the platform's fetch, its defaults untouched, the way an app would pair them: models serialised by jsona,
// relations as related models (relationships) or as the id reads return (an attribute).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Jsona } from 'jsona';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createTestUser, TEST_PASSWORD } from '../helpers/test-user.ts';

const JSON_API = 'application/vnd.api+json';

// jsona's entry point does not export its model and body types: the same shapes, by what its methods take.
interface TJsonaModel {
  type: string;
  id?: string;
  relationshipNames?: string[];
  [property: string]: unknown;
}
interface TJsonApiBody {
  data?: unknown;
  included?: unknown[];
}

interface Answer {
  status: number;
  body: TJsonApiBody & {
    links?: Record<string, string>;
    meta?: { total: number };
    errors?: { code: string; source?: { pointer?: string } }[];
  };
}

for (const dialect of testDialects()) {
  describe(`jsona + fetch against svc on ${dialect}`, () => {
    let t: TestApp;
    let origin: string;
    let key: string;
    const jsona = new Jsona();

    async function call(method: string, path: string, model?: TJsonaModel, includeNames?: string[]): Promise<Answer> {
      const response = await fetch(new URL(path, origin), {
        method,
        headers: { accept: JSON_API, authorization: `Bearer ${key}`, ...(model ? { 'content-type': JSON_API } : {}) },
        ...(model
          ? { body: JSON.stringify(jsona.serialize({ stuff: model, ...(includeNames ? { includeNames } : {}) })) }
          : {}),
      });
      const text = await response.text();
      return {
        status: response.status,
        body: text === '' ? ({} as Answer['body']) : (JSON.parse(text) as Answer['body']),
      };
    }
    const models = (answer: Answer) =>
      jsona.deserialize(answer.body as Parameters<typeof jsona.deserialize>[0]) as TJsonaModel[];
    const model = (answer: Answer) =>
      jsona.deserialize(answer.body as Parameters<typeof jsona.deserialize>[0]) as TJsonaModel;

    let news: TJsonaModel;

    before(async () => {
      t = await startTestApp(dialect);
      origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
      await createTestUser(t.ctx, { id: 'jsona-user', email: 'jsona@example.com', role: 'editor' });
      const issued = await fetch(`${origin}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'jsona@example.com', password: TEST_PASSWORD, name: 'jsona' }),
      });
      assert.equal(issued.status, 201);
      key = ((await issued.json()) as { key: string }).key;
      const created = await call('POST', '/v1/categories', { type: 'categories', name: 'News' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      news = model(created);
      for (const [title, views, status] of [
        ['Alpha', 10, 'published'],
        ['Beta', 20, 'draft'],
        ['Gamma', 30, 'published'],
        ['Delta', 40, 'published'],
      ] as const) {
        // A new model with a related model: jsona sends it under relationships.
        const post = await call(
          'POST',
          '/v1/posts',
          { type: 'posts', title, views, status, category: news, relationshipNames: ['category'] },
          [],
        );
        assert.equal(post.status, 201, JSON.stringify(post.body));
      }
    });
    after(() => t.close());

    it('lists with a filter and a sort', async () => {
      const answer = await call('GET', '/v1/posts?filter[status]=published&sort=-views');
      assert.equal(answer.status, 200);
      assert.deepEqual(
        models(answer).map((post) => post.title),
        ['Delta', 'Gamma', 'Alpha'],
      );
    });

    it('pages by following links.next to the end', async () => {
      const seen: string[] = [];
      let next: string | undefined = '/v1/posts?sort=title&page[size]=3&page[number]=1';
      for (let pages = 0; next !== undefined && pages < 5; pages++) {
        const answer: Answer = await call('GET', next);
        assert.equal(answer.status, 200);
        seen.push(...models(answer).map((post) => post.title as string));
        next = answer.body.links?.next;
      }
      assert.deepEqual(seen, ['Alpha', 'Beta', 'Delta', 'Gamma']);
    });

    it('gets one record with its related record included', async () => {
      const list = models(await call('GET', '/v1/posts?title=Alpha'));
      const answer = await call('GET', `/v1/posts/${list[0]!.id}?include=category`);
      assert.equal(answer.status, 200);
      const post = model(answer);
      assert.equal(post.title, 'Alpha');
      assert.equal((post.category as TJsonaModel).name, 'News');
    });

    it('creates with the relation id as an attribute, updates its title and relation, and deletes', async () => {
      const created = await call('POST', '/v1/posts', { type: 'posts', title: 'From jsona', category_id: news.id });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const post = model(created);
      assert.equal(post.category_id, news.id);

      const read = model(await call('GET', `/v1/posts/${post.id}?include=category`));
      // The changed attribute and the related model as read; the server-set created_at and updated_at stay out.
      const updated = await call(
        'PATCH',
        `/v1/posts/${post.id}`,
        {
          type: 'posts',
          id: read.id,
          title: 'Edited by jsona',
          category: read.category,
          relationshipNames: ['category'],
        },
        [],
      );
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.equal(model(updated).title, 'Edited by jsona');
      assert.equal(model(updated).category_id, news.id);

      assert.equal((await call('DELETE', `/v1/posts/${post.id}`)).status, 204);
      const gone = await call('GET', `/v1/posts/${post.id}`);
      assert.equal(gone.status, 404);
      assert.equal(gone.body.errors?.[0]?.code, 'RESOURCE_NOT_FOUND');
    });

    it('gets an error that points into the document it sent', async () => {
      const answer = await call('POST', '/v1/posts', { type: 'posts', title: 'x'.repeat(201) });
      assert.equal(answer.status, 400);
      assert.equal(answer.body.errors?.[0]?.source?.pointer, '/data/attributes/title');
    });
  });
}
