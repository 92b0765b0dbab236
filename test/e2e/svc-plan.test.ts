// `svc plan` as a user runs it: a real process against a database an earlier start filled, printing what
// `svc start` would change, marking the destructive changes, and changing nothing itself.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/server.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { writeConfigFile } from '../helpers/svc-process.ts';
import { authorizationFor } from '../helpers/test-auth.ts';
import { testConfig } from '../helpers/test-config.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';

const SVC = join(import.meta.dirname, '../../bin/svc.js');
const EDITOR = { editor: { read: true, create: true, update: true, delete: true } } as const;

const APPLIED: Record<string, ResourceDefinition> = {
  notes: { fields: { code: { type: 'string', unique: true }, level: { type: 'integer' } }, permissions: EDITOR },
};
const SAFE: Record<string, ResourceDefinition> = {
  notes: {
    fields: { code: { type: 'string' }, level: { type: 'number' }, pinned: { type: 'boolean', default: true } },
    permissions: EDITOR,
  },
};
const DESTRUCTIVE: Record<string, ResourceDefinition> = {
  notes: { fields: { code: { type: 'string', unique: true }, level: { type: 'boolean' } }, permissions: EDITOR },
  tags: { fields: { label: { type: 'string' } }, permissions: EDITOR },
};

for (const dialect of testDialects()) {
  describe(`svc plan (${dialect})`, () => {
    let database: TestDatabase;

    /** Runs `svc plan` with a config whose database URL is wrong: DATABASE_URL must win, as for `svc start`. */
    function plan(resources: Record<string, ResourceDefinition>) {
      const file = writeConfigFile({ database: { url: 'sqlite:/nonexistent/not-this.db' }, resources });
      const result = spawnSync(process.execPath, [SVC, 'plan', '--config', file], {
        encoding: 'utf8',
        env: { ...process.env, DATABASE_URL: database.url },
        timeout: 120_000,
      });
      return { status: result.status, stdout: result.stdout, stderr: result.stderr };
    }

    before(async () => {
      database = await createTestDatabase(dialect);
      const { app, ctx } = await buildApp({
        config: testConfig(database.url, { resources: APPLIED }),
        startWorkers: false,
      });
      await app.ready();
      const editor = await authorizationFor(app, ctx, 'editor', 'editor-1');
      for (const level of [5, 9]) {
        const response = await app.inject({
          method: 'POST',
          url: '/v1/notes',
          headers: { authorization: editor },
          payload: { code: `c${level}`, level },
        });
        assert.equal(response.statusCode, 201, response.body);
      }
      await app.close();
    });

    after(async () => {
      await database.drop();
    });

    it('lists safe changes and exits 0', () => {
      const result = plan(SAFE);
      assert.equal(result.status, 0, result.stderr + result.stdout);
      const lines = result.stdout.split('\n');
      assert.ok(lines.includes('  retype column notes.level: integer → number, values kept'), result.stdout);
      assert.ok(
        lines.includes('  add column notes.pinned (boolean), existing rows get the default true'),
        result.stdout,
      );
      assert.ok(lines.includes('  drop index uq_notes_code'), result.stdout);
      assert.match(result.stdout, /^3 changes\.$/m);
    });

    it('marks destructive changes and exits 1, changing nothing', () => {
      for (let run = 0; run < 2; run++) {
        const result = plan(DESTRUCTIVE);
        assert.equal(result.status, 1, result.stderr + result.stdout);
        const lines = result.stdout.split('\n');
        assert.ok(lines.includes('  create table tags'), result.stdout);
        assert.ok(
          lines.some((line) =>
            line.startsWith('! retype column notes.level: integer → boolean, emptying it (destructive: '),
          ),
          result.stdout,
        );
        assert.match(
          result.stdout,
          /^2 changes, 1 destructive \(svc start refuses them without --allow-destructive\)\.$/m,
        );
      }
    });

    it('plans a SQLite database that does not exist yet without creating it', { skip: dialect !== 'sqlite' }, () => {
      const missing = join(mkdtempSync(join(tmpdir(), 'svc-plan-')), 'later.db');
      const file = writeConfigFile({ database: { url: `sqlite:${missing}` }, resources: APPLIED });
      const result = spawnSync(process.execPath, [SVC, 'plan', '--config', file], {
        encoding: 'utf8',
        timeout: 120_000,
      });
      assert.equal(result.status, 0, result.stderr + result.stdout);
      assert.equal(result.stdout, '  create table notes\n1 change.\n');
      assert.equal(existsSync(missing), false);
    });

    it('shows adding a search index as a safe change, changing nothing', () => {
      const searchable: Record<string, ResourceDefinition> = {
        notes: {
          searchLanguage: 'english',
          fields: { code: { type: 'string', unique: true, searchable: true }, level: { type: 'integer' } },
          permissions: EDITOR,
        },
      };
      for (let run = 0; run < 2; run++) {
        const result = plan(searchable);
        assert.equal(result.status, 0, result.stderr + result.stdout);
        assert.equal(result.stdout, '  create search index on notes (code; language english)\n1 change.\n');
      }
    });

    it('says so when the database already matches', () => {
      const result = plan(APPLIED);
      assert.equal(result.status, 0, result.stderr + result.stdout);
      assert.equal(result.stdout, 'No changes: the database matches the configuration.\n');
    });
  });
}
