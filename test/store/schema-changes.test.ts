// Config changes between restarts on one database: an app is built, rows are written, the app is closed
// and built again with changed definitions. Each change must be applied exactly (indexes dropped with
// the attribute that made them, foreign keys changed) or refused when it could lose or reinterpret data.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { buildApp, type BuiltApp } from '../../src/server.ts';
import type { FieldDefinition, ResourceDefinition } from '../../src/config/config-types.ts';
import { DestructiveChangeError } from '../../src/store/destructive-change.ts';
import { createStore } from '../../src/store/create-store.ts';
import { authorizationFor } from '../helpers/test-auth.ts';
import { testConfig } from '../helpers/test-config.ts';
import { createTestDatabase, testDialects, type TestDatabase, type TestDialect } from '../helpers/test-databases.ts';

const EDITOR = { editor: { read: true, create: true, update: true, delete: true } } as const;

function notes(fields: Record<string, FieldDefinition>): Record<string, ResourceDefinition> {
  return { notes: { fields, permissions: EDITOR } };
}

/** One database, restarted with whatever definitions a test gives. */
class Restarts {
  readonly database: TestDatabase;
  #app: BuiltApp | undefined;
  #auth = '';

  private constructor(database: TestDatabase) {
    this.database = database;
  }

  static async on(dialect: TestDialect): Promise<Restarts> {
    return new Restarts(await createTestDatabase(dialect));
  }

  get ctx(): BuiltApp['ctx'] {
    if (!this.#app) throw new Error('not started');
    return this.#app.ctx;
  }

  /** Closes the running app and builds a new one; rejects (leaving none running) when the start is refused. */
  async start(resources: Record<string, ResourceDefinition>, allowDestructive = false): Promise<void> {
    await this.stop();
    const built = await buildApp({
      config: testConfig(this.database.url, { resources }),
      allowDestructive,
      startWorkers: false,
    });
    await built.app.ready();
    this.#app = built;
    this.#auth = await authorizationFor(built.app, built.ctx, 'editor', `editor-${randomBytes(4).toString('hex')}`);
  }

  async stop(): Promise<void> {
    await this.#app?.app.close();
    this.#app = undefined;
  }

  async request(method: InjectOptions['method'], url: string, payload?: object) {
    if (!this.#app) throw new Error('not started');
    const response = await this.#app.app.inject({
      method,
      url,
      headers: { authorization: this.#auth },
      ...(payload ? { payload } : {}),
    });
    return {
      status: response.statusCode,
      body: response.body,
      json: () => response.json() as { data: { id: string; attributes: Record<string, unknown> } },
    };
  }

  async create(resource: string, attributes: object): Promise<string> {
    const response = await this.request('POST', `/v1/${resource}`, attributes);
    assert.equal(response.status, 201, response.body);
    return response.json().data.id;
  }

  async attributes(resource: string, id: string): Promise<Record<string, unknown>> {
    const response = await this.request('GET', `/v1/${resource}/${id}`);
    assert.equal(response.status, 200, response.body);
    return response.json().data.attributes;
  }

  async indexes(table: string): Promise<string[]> {
    return this.ctx.store.dialect.listIndexes(this.ctx.store.db, table);
  }

  async close(): Promise<void> {
    await this.stop();
    await this.database.drop();
  }
}

for (const dialect of testDialects()) {
  describe(`schema changes between restarts (${dialect})`, () => {
    const open: Restarts[] = [];
    const fresh = async () => {
      const restarts = await Restarts.on(dialect);
      open.push(restarts);
      return restarts;
    };
    after(async () => {
      for (const restarts of open) await restarts.close();
    });

    it('drops the unique index when `unique` is removed, so a duplicate is then accepted', async () => {
      const db = await fresh();
      await db.start(notes({ code: { type: 'string', unique: true } }));
      await db.create('notes', { code: 'A' });
      assert.equal((await db.request('POST', '/v1/notes', { code: 'A' })).status, 409);
      await db.start(notes({ code: { type: 'string' } }));
      assert.ok(!(await db.indexes('notes')).includes('uq_notes_code'));
      await db.create('notes', { code: 'A' });
    });

    it('refuses to add `unique` back while duplicates exist, even with --allow-destructive', async () => {
      const db = await fresh();
      await db.start(notes({ code: { type: 'string' } }));
      await db.create('notes', { code: 'B' });
      await db.create('notes', { code: 'B' });
      await db.stop();
      await assert.rejects(db.start(notes({ code: { type: 'string', unique: true } }), true), (error: Error) => {
        assert.ok(error instanceof DestructiveChangeError);
        assert.match(error.message, /create unique index uq_notes_code.*several rows have the value "B"/);
        return true;
      });
    });

    it('refuses a new unique field whose default every existing row would share', async () => {
      const db = await fresh();
      await db.start(notes({ title: { type: 'string' } }));
      await db.create('notes', { title: 'a' });
      await db.create('notes', { title: 'b' });
      await db.stop();
      await assert.rejects(
        db.start(notes({ title: { type: 'string' }, code: { type: 'string', unique: true, default: 'x' } }), true),
        /uq_notes_code.*would all get the same default/,
      );
    });

    it('drops the index of a field no longer `sortable`, and makes it again when it is', async () => {
      const db = await fresh();
      await db.start(notes({ rank: { type: 'integer', sortable: true } }));
      assert.ok((await db.indexes('notes')).includes('ix_notes_rank'));
      await db.start(notes({ rank: { type: 'integer' } }));
      assert.ok(!(await db.indexes('notes')).includes('ix_notes_rank'));
      await db.start(notes({ rank: { type: 'integer', sortable: true } }));
      assert.ok((await db.indexes('notes')).includes('ix_notes_rank'));
    });

    it('refuses integer → boolean (a change of meaning even where both are stored as integers); allowed, it empties the column', async () => {
      const db = await fresh();
      await db.start(notes({ level: { type: 'integer' } }));
      const five = await db.create('notes', { level: 5 });
      await db.create('notes', { level: 9 });
      await db.stop();
      await assert.rejects(db.start(notes({ level: { type: 'boolean' } })), (error: Error) => {
        assert.ok(error instanceof DestructiveChangeError);
        assert.match(error.message, /retype column notes\.level: integer → boolean/);
        return true;
      });
      // Refused means untouched.
      await db.start(notes({ level: { type: 'integer' } }));
      assert.equal((await db.attributes('notes', five)).level, 5);
      await db.start(notes({ level: { type: 'boolean' } }), true);
      assert.equal((await db.attributes('notes', five)).level, null);
      await db.create('notes', { level: true });
    });

    it('refuses number → integer, text → string and dropping a field without --allow-destructive', async () => {
      const db = await fresh();
      const before = { amount: { type: 'number' }, body: { type: 'text' }, extra: { type: 'string' } } as const;
      await db.start(notes(before));
      const id = await db.create('notes', { amount: 2.5, body: 'long text', extra: 'x' });
      await db.stop();
      for (const changed of [
        { ...before, amount: { type: 'integer' } },
        { ...before, body: { type: 'string' } },
        { amount: before.amount, body: before.body },
      ] as Record<string, FieldDefinition>[]) {
        await assert.rejects(db.start(notes(changed)), DestructiveChangeError);
      }
      await db.start(notes({ amount: before.amount, body: before.body }), true);
      const attributes = await db.attributes('notes', id);
      assert.deepEqual([attributes.amount, attributes.body, 'extra' in attributes], [2.5, 'long text', false]);
    });

    it('applies changes that lose nothing in place, keeping the values (integer → number, string → text, maxLength raised)', async () => {
      const db = await fresh();
      await db.start(
        notes({
          level: { type: 'integer', sortable: true },
          title: { type: 'string', maxLength: 10 },
          code: { type: 'string' },
        }),
      );
      const id = await db.create('notes', { level: 5, title: 'short', code: 'c-1' });
      await db.start(
        notes({
          level: { type: 'number', sortable: true },
          title: { type: 'string', maxLength: 100 },
          code: { type: 'text' },
        }),
      );
      const kept = await db.attributes('notes', id);
      assert.deepEqual([kept.level, kept.title, kept.code], [5, 'short', 'c-1']);
      const fractional = await db.create('notes', {
        level: 2.5,
        title: 'a title longer than ten',
        code: 'x'.repeat(300),
      });
      assert.equal((await db.attributes('notes', fractional)).level, 2.5);
      const sorted = await db.request('GET', '/v1/notes?_sort=level');
      assert.deepEqual(
        (sorted.json() as unknown as { data: Array<{ attributes: { level: number } }> }).data.map(
          (r) => r.attributes.level,
        ),
        [2.5, 5],
      );
    });

    it("fills a new field's default into the existing rows (integer, boolean, json, datetime, enum)", async () => {
      const db = await fresh();
      await db.start(notes({ title: { type: 'string' } }));
      const id = await db.create('notes', { title: 'old' });
      await db.start(
        notes({
          title: { type: 'string' },
          priority: { type: 'integer', default: 3 },
          pinned: { type: 'boolean', default: true },
          hidden: { type: 'boolean', default: false },
          meta: { type: 'json', default: { tags: ['a'], n: 1 } },
          due: { type: 'datetime', default: '2030-01-02T03:04:05+02:00' },
          state: { type: 'enum', values: ['open', 'done'], default: 'open', required: true },
          note: { type: 'text' },
        }),
      );
      const attributes = await db.attributes('notes', id);
      assert.deepEqual(
        [
          attributes.priority,
          attributes.pinned,
          attributes.hidden,
          attributes.meta,
          attributes.due,
          attributes.state,
          attributes.note,
        ],
        [3, true, false, { tags: ['a'], n: 1 }, '2030-01-02T01:04:05.000Z', 'open', null],
      );
      const filtered = await db.request('GET', '/v1/notes?pinned=true&priority=3');
      assert.equal((filtered.json() as unknown as { data: unknown[] }).data.length, 1, filtered.body);
    });

    it('refuses a new required field without a default on a table that has rows, not on an empty one', async () => {
      const db = await fresh();
      await db.start({
        ...notes({ title: { type: 'string' } }),
        empty: { fields: { title: { type: 'string' } }, permissions: EDITOR },
      });
      await db.create('notes', { title: 'x' });
      await db.stop();
      await assert.rejects(
        db.start(notes({ title: { type: 'string' }, owner: { type: 'string', required: true } })),
        /no value for this required field/,
      );
      await db.start({
        ...notes({ title: { type: 'string' } }),
        empty: {
          fields: { title: { type: 'string' }, owner: { type: 'string', required: true } },
          permissions: EDITOR,
        },
      });
    });

    it("changes a relation's onDelete, keeping the rows and the foreign keys that point at the rebuilt table", async () => {
      const db = await fresh();
      const resources = (onDelete: 'restrict' | 'cascade'): Record<string, ResourceDefinition> => ({
        posts: { fields: { title: { type: 'string' } }, permissions: EDITOR },
        comments: {
          fields: {
            post_id: { type: 'relation', resource: 'posts', onDelete },
            text: { type: 'string', unique: true },
          },
          permissions: EDITOR,
        },
        likes: {
          fields: { comment_id: { type: 'relation', resource: 'comments', onDelete: 'restrict' } },
          permissions: EDITOR,
        },
      });
      await db.start(resources('restrict'));
      const post = await db.create('posts', { title: 'p' });
      const comment = await db.create('comments', { post_id: post, text: 'first' });
      const like = await db.create('likes', { comment_id: comment });
      assert.equal((await db.request('DELETE', `/v1/posts/${post}`)).status, 409);

      await db.start(resources('cascade'));
      // The rebuilt table kept its rows and indexes; what references it still holds.
      assert.equal((await db.attributes('comments', comment)).text, 'first');
      assert.ok((await db.indexes('comments')).includes('uq_comments_text'));
      assert.ok((await db.indexes('comments')).includes('ix_comments_post_id'));
      assert.equal((await db.request('POST', '/v1/comments', { post_id: post, text: 'first' })).status, 409);
      assert.equal((await db.request('POST', '/v1/likes', { comment_id: crypto.randomUUID() })).status, 400);
      assert.equal((await db.request('DELETE', `/v1/comments/${comment}`)).status, 409);
      assert.equal((await db.attributes('likes', like)).comment_id, comment);

      // Now the post's deletion cascades: blocked only by the like (restrict) on its comment.
      await db.request('DELETE', `/v1/likes/${like}`);
      assert.equal((await db.request('DELETE', `/v1/posts/${post}`)).status, 204);
      assert.equal((await db.request('GET', `/v1/comments/${comment}`)).status, 404);
    });

    it('changes the onDelete of a relation to its own resource', async () => {
      const db = await fresh();
      const resources = (onDelete: 'restrict' | 'cascade'): Record<string, ResourceDefinition> => ({
        nodes: { fields: { parent_id: { type: 'relation', resource: 'nodes', onDelete } }, permissions: EDITOR },
      });
      await db.start(resources('restrict'));
      const root = await db.create('nodes', {});
      const child = await db.create('nodes', { parent_id: root });
      assert.equal((await db.request('DELETE', `/v1/nodes/${root}`)).status, 409);
      await db.start(resources('cascade'));
      assert.equal((await db.attributes('nodes', child)).parent_id, root);
      assert.equal((await db.request('POST', '/v1/nodes', { parent_id: crypto.randomUUID() })).status, 400);
      assert.equal((await db.request('DELETE', `/v1/nodes/${root}`)).status, 204);
      assert.equal((await db.request('GET', `/v1/nodes/${child}`)).status, 404);
    });

    it('keeps a unique index leaving soft-deleted rows out when soft delete is turned on', async () => {
      const db = await fresh();
      const fields = { code: { type: 'string', unique: true } } as const;
      await db.start(notes(fields));
      const first = await db.create('notes', { code: 'A' });
      await db.start({ notes: { fields, enableSoftDelete: true, permissions: EDITOR } });
      assert.equal((await db.request('POST', '/v1/notes', { code: 'A' })).status, 409);
      assert.equal((await db.request('DELETE', `/v1/notes/${first}`)).status, 204);
      await db.create('notes', { code: 'A' });
      assert.equal((await db.request('POST', '/v1/notes', { code: 'A' })).status, 409);
      // Turning it off would bring the deleted row back beside its duplicate: refused in any case.
      await db.stop();
      await assert.rejects(
        db.start(notes(fields), true),
        /recreate unique index uq_notes_code \(soft delete turned off\).*several rows have the value "A"/,
      );
    });

    it('changes nothing on a restart with the same definitions', async () => {
      const db = await fresh();
      const resources = notes({ title: { type: 'string', unique: true }, level: { type: 'integer', sortable: true } });
      await db.start(resources);
      await db.stop();
      const store = createStore(db.database.url);
      try {
        const { planResourceSchema } = await import('../../src/cluster/resource-schema.ts');
        const { ResourceRegistry } = await import('../../src/resources/resource-registry.ts');
        const plan = await planResourceSchema(store, new ResourceRegistry(testConfig(db.database.url, { resources })));
        assert.deepEqual(plan.changes, []);
      } finally {
        await store.close();
      }
    });
  });
}
