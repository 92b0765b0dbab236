// A relation to a record the caller cannot read (outside their read filter, soft-deleted, or in a
// resource they cannot read at all) answers exactly as one to a record that does not exist, on create,
// PUT and PATCH: otherwise a relation field would tell which ids of hidden records exist.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';

const ALL = { read: true, create: true, update: true, delete: true } as const;

const RESOURCES: Record<string, ResourceDefinition> = {
  projects: {
    enableSoftDelete: true,
    fields: { name: { type: 'string', required: true }, owner_id: { type: 'string' } },
    permissions: {
      editor: ALL,
      member: {
        read: { filter: { owner_id: { eq: '$userId' } } },
        create: { fields: ['name'], preset: { owner_id: '$userId' } },
      },
    },
  },
  vaults: {
    fields: { name: { type: 'string', required: true } },
    permissions: { editor: ALL },
  },
  tasks: {
    fields: {
      title: { type: 'string', required: true },
      project_id: { type: 'relation', resource: 'projects', onDelete: 'cascade' },
      vault_id: { type: 'relation', resource: 'vaults', onDelete: 'set_null' },
    },
    permissions: { editor: ALL, member: { read: true, create: true, update: true } },
  },
};

const NEVER_CREATED = '0190c2a4-0000-7000-8000-000000000000';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

for (const dialect of testDialects()) {
  describe(`relations to records the caller cannot read (${dialect})`, () => {
    let t: TestApp;
    let alice: string;
    let editor: string;
    /** Alice's own project: a reference she may make. */
    let visible: string;
    /** Bob's project: outside Alice's read filter. */
    let othersProject: string;
    /** Alice's project, soft-deleted. */
    let deleted: string;
    /** A vault: Alice cannot read vaults at all. */
    let vault: string;
    let taskId: string;

    const create = async (auth: string, resource: string, payload: object): Promise<string> => {
      const response = await t.request({ method: 'POST', url: `/v1/${resource}`, auth, payload });
      assert.equal(response.statusCode, 201, response.body);
      return response.json().data.id;
    };

    before(async () => {
      t = await startTestApp(dialect, { resources: RESOURCES });
      alice = await t.as('member', 'alice');
      const bob = await t.as('member', 'bob');
      editor = await t.as('editor');
      visible = await create(alice, 'projects', { name: 'mine' });
      othersProject = await create(bob, 'projects', { name: 'theirs' });
      deleted = await create(alice, 'projects', { name: 'gone' });
      assert.equal(
        (await t.request({ method: 'DELETE', url: `/v1/projects/${deleted}`, auth: editor })).statusCode,
        204,
      );
      vault = await create(editor, 'vaults', { name: 'keys' });
      taskId = await create(alice, 'tasks', { title: 'a task', project_id: visible });
    });
    after(() => t.close());

    const send = (method: 'POST' | 'PUT' | 'PATCH', payload: object) =>
      t.request({
        method,
        url: method === 'POST' ? '/v1/tasks' : `/v1/tasks/${taskId}`,
        auth: alice,
        payload: { title: 'changed', ...payload },
      });

    /** The answer with ids (and the request id) blanked: what may differ between two probes. */
    const comparable = (response: Awaited<ReturnType<TestApp['request']>>) => ({
      status: response.statusCode,
      body: JSON.parse(response.body.replace(UUID, '<id>')) as unknown,
    });

    const cases = [
      { name: 'outside the read filter', field: 'project_id', hidden: () => othersProject },
      { name: 'soft-deleted', field: 'project_id', hidden: () => deleted },
      { name: 'in a resource the caller cannot read', field: 'vault_id', hidden: () => vault },
    ];
    for (const method of ['POST', 'PUT', 'PATCH'] as const) {
      for (const c of cases) {
        it(`${method}: a record ${c.name} answers exactly as a missing one`, async () => {
          const missing = await send(method, { [c.field]: NEVER_CREATED });
          const hidden = await send(method, { [c.field]: c.hidden() });
          assert.equal(missing.statusCode, 400, missing.body);
          const { errors } = missing.json();
          assert.deepEqual(
            errors.map((e: { code: string; source: { pointer: string }; detail: string }) => [
              e.code,
              e.source.pointer,
              e.detail,
            ]),
            [
              [
                'RELATION_REFERENCE_ERROR',
                `/data/attributes/${c.field}`,
                `No ${c.field === 'vault_id' ? 'vaults' : 'projects'} record with id '${NEVER_CREATED}'`,
              ],
            ],
          );
          assert.deepEqual(comparable(hidden), comparable(missing));
        });
      }
    }

    for (const method of ['POST', 'PATCH'] as const) {
      it(`${method}: answers a target deleted between the check and the write (a foreign-key refusal) as a missing one`, async (ctx) => {
        // SQLite runs one write at a time, so only PostgreSQL can see this race.
        if (dialect !== 'postgres') return ctx.skip('no concurrent writers on SQLite');
        const doomed = await create(alice, 'projects', { name: 'doomed' });
        // Another connection deletes the target and holds the commit: the check still sees the row, the
        // foreign key of the write waits for that transaction and then finds the row gone.
        const other = new pg.Client({ connectionString: t.database.url });
        await other.connect();
        try {
          await other.query('begin');
          await other.query('delete from projects where id = $1', [doomed]);
          const vanishing = send(method, { project_id: doomed });
          const waiting = async () =>
            (
              await other.query(
                "select count(*)::int as n from pg_locks where not granted and locktype = 'transactionid'",
              )
            ).rows[0].n > 0;
          for (let i = 0; i < 200 && !(await waiting()); i++) await new Promise((resolve) => setTimeout(resolve, 25));
          assert.ok(await waiting(), 'the write waits for the deleting transaction');
          await other.query('commit');
          const vanished = await vanishing;
          const missing = await send(method, { project_id: NEVER_CREATED });
          assert.equal(vanished.statusCode, 400, vanished.body);
          assert.deepEqual(comparable(vanished), comparable(missing));
        } finally {
          await other.end();
        }
      });
    }

    it('still accepts a relation to a record the caller can read', async () => {
      const response = await send('PATCH', { project_id: visible });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal((await send('POST', { project_id: visible })).statusCode, 201);
    });

    it('lets a caller who may read every row refer to any live one', async () => {
      const response = await t.request({
        method: 'POST',
        url: '/v1/tasks',
        auth: editor,
        payload: { title: 'x', project_id: othersProject, vault_id: vault },
      });
      assert.equal(response.statusCode, 201, response.body);
      const gone = await t.request({
        method: 'POST',
        url: '/v1/tasks',
        auth: editor,
        payload: { title: 'x', project_id: deleted },
      });
      assert.equal(gone.statusCode, 400);
      assert.equal(gone.json().errors[0].code, 'RELATION_REFERENCE_ERROR');
    });
  });
}
