// The starter `svc init` writes: in step with the config schema (every setting present, every default the
// schema's), loaded by the real loader, served by the app with both resources and both roles working,
// and an .env.example naming every variable svc and the starter read.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CONFIG_SCHEMA } from '../../src/config/config-schema.ts';
import { S3_STORAGE_SETTINGS } from '../../src/config/files-settings.ts';
import { ENV_OVERRIDES } from '../../src/config/apply-env-overrides.ts';
import { loadConfig } from '../../src/resources/config-loader.ts';
import { buildApp } from '../../src/server.ts';
import { STARTER_CONFIG } from '../../src/cli/starter-config.ts';
import { STARTER_ENV_EXAMPLE } from '../../src/cli/starter-env-example.ts';
import { authorizationFor } from '../helpers/test-auth.ts';

type Schema = { properties?: Record<string, Schema>; default?: unknown };

const starter = parse(STARTER_CONFIG) as Record<string, unknown>;

/** Every setting the schema describes, as a path, with its schema; resources and their $defs aside. */
function schemaLeaves(schema: Schema, path: string[] = []): { path: string[]; schema: Schema }[] {
  if (schema.properties === undefined) return [{ path, schema }];
  return Object.entries(schema.properties).flatMap(([key, child]) => schemaLeaves(child, [...path, key]));
}

function valueAt(tree: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>(
    (node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
    tree,
  );
}

describe('the starter config', () => {
  it('has every top-level key of the config schema', () => {
    const topLevel = Object.keys((CONFIG_SCHEMA as Schema).properties ?? {});
    assert.deepEqual(
      topLevel.filter((key) => !(key in starter)),
      [],
    );
  });

  it('has every setting of the schema, each at the schema default where there is one', () => {
    // Every social provider better-auth ships has settings; the starter shows two of them by their credentials,
    // as the docs do. auth.jwt has no defaults (issuer, audience and JWKS are the user's), so it is a comment.
    const optional = ({ path }: { path: string[] }) =>
      (path[0] === 'auth' && path[1] === 'social' && !['clientId', 'clientSecret'].includes(path[3] ?? '')) ||
      (path[0] === 'auth' && path[1] === 'social' && !['github', 'google'].includes(path[2] ?? '')) ||
      (path[0] === 'auth' && path[1] === 'jwt') ||
      // The s3 driver's settings have no defaults (the bucket and its keys are the user's): a comment.
      (path[0] === 'storage' && S3_STORAGE_SETTINGS.some((setting) => setting === path[1]));
    const leaves = schemaLeaves(CONFIG_SCHEMA as Schema).filter((leaf) => !optional(leaf));
    assert.deepEqual(
      leaves.filter(({ path }) => valueAt(starter, path) === undefined).map(({ path }) => path.join('.')),
      [],
    );
    const differing = leaves
      .filter(({ schema }) => schema.default !== undefined && typeof schema.default !== 'object')
      .filter(({ path, schema }) => valueAt(starter, path) !== schema.default)
      .map(
        ({ path, schema }) =>
          `${path.join('.')}: ${JSON.stringify(valueAt(starter, path))}, schema default ${JSON.stringify(schema.default)}`,
      );
    assert.deepEqual(differing, []);
  });

  it('comments every top-level setting on the line above it', () => {
    const lines = STARTER_CONFIG.split('\n');
    const uncommented = lines
      .map((line, i) => ({ line, above: lines[i - 1] ?? '' }))
      .filter(({ line }) => /^[$\w]+:/.test(line))
      .filter(({ above }) => !above.startsWith('# '))
      .map(({ line }) => line);
    assert.deepEqual(uncommented, []);
  });

  it('names in .env.example every variable svc reads and every one the starter reads', () => {
    // From the parsed values, so that the header comment's ${VAR:-default} is not taken for one.
    const starterVariables = [...JSON.stringify(starter).matchAll(/\$\{([A-Z_][A-Z0-9_]*)/g)].map((match) => match[1]!);
    assert.ok(starterVariables.includes('SMTP_URL'));
    const read = [
      ...ENV_OVERRIDES.map((o) => o.variable),
      'SVC_CONFIG',
      'SVC_SECRET',
      'LOG_LEVEL',
      'LOG_FORMAT',
      ...starterVariables,
    ];
    const listed = new Set([...STARTER_ENV_EXAMPLE.matchAll(/^# ([A-Z_][A-Z0-9_]*)=/gm)].map((match) => match[1]!));
    assert.deepEqual(
      read.filter((variable) => !listed.has(variable)),
      [],
    );
    // Each variable has its explanation just above it (or above the group it belongs to).
    for (const block of STARTER_ENV_EXAMPLE.trim().split('\n\n').slice(1))
      assert.match(block.split('\n')[0]!, /^# [A-Z][^=]*$/, block);
  });

  describe('served', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-starter-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('loads with the config loader and serves both resources to both roles', async () => {
      const file = join(dir, 'svc.config.yaml');
      writeFileSync(file, STARTER_CONFIG);
      // As `svc start` reads it in that folder: the SQLite file and secrets land in ./.svc there.
      const config = await loadConfig({ file, cwd: dir, env: {} });
      assert.deepEqual(Object.keys(config.resources), ['projects', 'tasks']);
      assert.equal(config.database.url, `sqlite:${join(dir, '.svc/data.db')}`);
      let announced: string | undefined;
      const { app, ctx } = await buildApp({ config, announceAdminToken: (token) => (announced = token) });
      try {
        await app.ready();
        assert.ok(announced, 'an empty adminToken generates one at the first start');
        const manager = await authorizationFor(app, ctx, 'manager', 'manager-1');
        const user = await authorizationFor(app, ctx, 'user', 'user-1');
        const post = (auth: string, url: string, payload: object) =>
          app.inject({ method: 'POST', url, headers: { authorization: auth }, payload });

        const project = await post(manager, '/v1/projects', { name: 'Launch' });
        assert.equal(project.statusCode, 201, project.body);
        const projectId = (project.json() as { data: { id: string } }).data.id;
        const assigned = await post(manager, '/v1/tasks', {
          project_id: projectId,
          title: 'Write the announcement',
          assignee_id: 'user-1',
        });
        assert.equal(assigned.statusCode, 201, assigned.body);
        assert.equal((assigned.json() as { data: { attributes: { status: string } } }).data.attributes.status, 'todo');
        await post(manager, '/v1/tasks', { project_id: projectId, title: 'Someone else', assignee_id: 'user-2' });
        const own = await post(user, '/v1/tasks', { project_id: projectId, title: 'Mine' });
        assert.equal(own.statusCode, 201, own.body);
        assert.equal(
          (own.json() as { data: { attributes: { assignee_id: string } } }).data.attributes.assignee_id,
          'user-1',
        );

        const seen = await app.inject({
          method: 'GET',
          url: '/v1/tasks?_sort=title',
          headers: { authorization: user },
        });
        assert.equal(seen.statusCode, 200, seen.body);
        assert.deepEqual(
          (seen.json() as { data: { attributes: { title: string } }[] }).data.map((task) => task.attributes.title),
          ['Mine', 'Write the announcement'],
        );
        assert.equal((await post(user, '/v1/projects', { name: 'Not mine to make' })).statusCode, 403);
      } finally {
        await app.close();
        await ctx.store.close().catch(() => {});
      }
    });
  });
});
