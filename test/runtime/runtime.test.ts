// The runtime builds, starts and stops the service's components with no HTTP at all: it loads no Fastify
// module, and closing it releases what it opened (and only that).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import { createServiceLogger } from '../../src/logging/service-logger.ts';
import { createStore } from '../../src/store/create-store.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { testConfig, BLOG_RESOURCES } from '../helpers/test-config.ts';

const REFUSE_FASTIFY = fileURLToPath(new URL('./fixtures/refuse-fastify.mjs', import.meta.url));

/** Imports `module` in a fresh Node where Fastify cannot be loaded; the child's outcome. */
function importWithoutFastify(module: string): { status: number | null; output: string } {
  const url = new URL(module, import.meta.url).href;
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      REFUSE_FASTIFY,
      '--input-type=module',
      '-e',
      `await import(${JSON.stringify(url)});`,
    ],
    {
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  return { status: child.status, output: `${child.stdout}${child.stderr}` };
}

async function answers(store: Runtime['context']['store']): Promise<boolean> {
  return sql`select 1`.execute(store.db).then(
    () => true,
    () => false,
  );
}

describe('runtime without HTTP', () => {
  it('loads no Fastify module (the HTTP app does)', () => {
    const runtime = importWithoutFastify('../../src/runtime.ts');
    assert.equal(runtime.status, 0, runtime.output);
    const app = importWithoutFastify('../../src/app.ts');
    assert.notEqual(app.status, 0);
    assert.match(app.output, /Fastify loaded by .*src\/app\.ts/);
  });

  for (const dialect of testDialects()) {
    describe(`lifecycle (${dialect})`, () => {
      let database: TestDatabase;
      before(async () => {
        database = await createTestDatabase(dialect);
      });
      after(async () => database.drop());

      it('builds the components on a prepared database, starts them, and closes the store it opened once', async () => {
        const runtime = await createRuntime({
          config: testConfig(database.url, { resources: BLOG_RESOURCES }),
          log: createServiceLogger(false),
        });
        const { store, registry, events } = runtime.context;
        assert.ok(registry.require('posts'));
        await sql`select count(*) from posts`.execute(store.db);
        await runtime.start();
        const unsubscribe = events.subscribe('posts', () => {});
        unsubscribe();
        await runtime.stop();
        assert.equal(await answers(store), true, 'stopping leaves the store open for the requests still running');
        await runtime.close();
        assert.equal(await answers(store), false);
        await runtime.close();
      });

      it('leaves a store it was given open', async () => {
        const store = createStore(database.url);
        try {
          const runtime = await createRuntime({
            config: testConfig(database.url, { resources: BLOG_RESOURCES }),
            store,
            log: createServiceLogger(false),
          });
          await runtime.start();
          await runtime.close();
          assert.equal(await answers(store), true);
        } finally {
          await store.close();
        }
      });
    });
  }
});
