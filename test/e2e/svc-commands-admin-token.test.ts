// Only `svc start` generates the stored admin token. Every other command, run on a fresh data folder
// without SVC_ADMIN_TOKEN, leaves none behind and prints none: a token made as a side effect would be
// shown where nobody keeps it, yet become valid at the next start.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeConfigFile } from '../helpers/svc-process.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { createStore } from '../../src/store/create-store.ts';
import { ADMIN_TOKEN_PREFIX, readStoredAdminTokenHash } from '../../src/auth/admin/stored-admin-token.ts';

const SVC = join(import.meta.dirname, '../../bin/svc.js');

for (const dialect of testDialects()) {
  describe(`commands other than start on ${dialect}`, () => {
    let database: TestDatabase;
    let dir: string;
    let configFile: string;
    before(async () => {
      database = await createTestDatabase(dialect);
      dir = mkdtempSync(join(tmpdir(), 'svc-no-token-'));
      configFile = writeConfigFile(
        {
          database: { url: database.url },
          dataDir: join(dir, 'data'),
          resources: { notes: { fields: { text: { type: 'text' } }, permissions: { editor: { read: true } } } },
        },
        dir,
      );
    });
    after(async () => {
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    function svc(args: string[], input = '') {
      const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn' };
      delete env.SVC_ADMIN_TOKEN;
      delete env.DATABASE_URL;
      const result = spawnSync(process.execPath, [SVC, ...args], {
        encoding: 'utf8',
        input,
        cwd: dir,
        env,
        timeout: 60_000,
      });
      return { status: result.status, output: `${result.stdout}${result.stderr}` };
    }

    it('creates a user, checks, plans, prints the OpenAPI document and the token status without making a token', async () => {
      const runs = [
        svc(
          [
            'users',
            'create',
            '--config',
            configFile,
            '--email',
            'first@example.test',
            '--role',
            'editor',
            '--password-stdin',
          ],
          'a long enough password\n',
        ),
        svc(['check', '--config', configFile]),
        svc(['plan', '--config', configFile]),
        svc(['openapi', '--config', configFile]),
        svc(['admin-token', '--config', configFile]),
      ];
      for (const run of runs) {
        assert.equal(run.status, 0, run.output);
        assert.ok(!run.output.includes(ADMIN_TOKEN_PREFIX), `a command printed an admin token:\n${run.output}`);
      }
      assert.match(runs[0]!.output, /created user .* <first@example\.test> with role editor/);
      assert.match(runs[4]!.output, /No admin token yet/);
      const store = createStore(database.url);
      try {
        assert.equal(
          await readStoredAdminTokenHash(store).catch(() => undefined),
          undefined,
          'an admin token was stored',
        );
      } finally {
        await store.close();
      }
    });
  });
}
