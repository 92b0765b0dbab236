// The web console's own key (POST /token with console: true): one per sign-in, ends when unused for
// CONSOLE_KEY_IDLE_MS (each request renews it) or at its 12-hour expiry, deleted at sign-out, pruned by
// the retention job once it stopped working, and left out of key lists unless asked for.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { testDialects } from '../helpers/test-databases.ts';
import { TEST_ADMIN_TOKEN } from '../helpers/test-config.ts';
import { CONSOLE_KEY_IDLE_MS } from '../../src/auth/keys/console-key.ts';
import { RetentionJob } from '../../src/retention/retention-job.ts';
import { RETENTION_DEFAULTS } from '../../src/config/config-schema.ts';
import { createApiKeyTable } from '../../src/auth/keys/api-key-table.ts';
import {
  PASSWORD,
  bearer,
  errorCodes,
  errorPointers,
  issueKey,
  signUp,
  startAuthSuite,
  testLogger,
  uniqueEmail,
  type AuthSuite,
} from './auth-fixtures.ts';

const MINUTE = 60_000;

for (const dialect of testDialects()) {
  describe(`console keys (${dialect})`, () => {
    let suite: AuthSuite;
    let email: string;
    let userId: string;
    before(async () => {
      suite = await startAuthSuite(dialect);
      email = uniqueEmail('console');
      userId = (await signUp(suite.t, email)).id;
    });
    after(() => suite.close());

    const me = (key: string): Promise<LightMyRequestResponse> =>
      suite.t.inject({ method: 'GET', url: '/me', headers: bearer(key) });
    const consoleKey = () => issueKey(suite.t, { email, password: PASSWORD, console: true });
    /** Moves a key's issue and last use into the past, as if that much time had gone by. */
    async function backdate(keyId: string, times: { createdAgoMs: number; usedAgoMs?: number; expiredAgoMs?: number }) {
      const { dialect: storeDialect, db } = suite.t.ctx.store;
      const at = (agoMs: number) => storeDialect.encode('timestamp', new Date(Date.now() - agoMs).toISOString());
      await db
        .updateTable('svc_api_keys')
        .set({
          created_at: at(times.createdAgoMs),
          last_request: times.usedAgoMs === undefined ? null : at(times.usedAgoMs),
          ...(times.expiredAgoMs === undefined ? {} : { expires_at: at(times.expiredAgoMs) }),
        })
        .where('id', '=', keyId)
        .execute();
    }
    const keyIds = async (query: string) =>
      (
        (
          await suite.t.inject({
            method: 'GET',
            url: `/admin/keys?userId=${userId}${query}`,
            headers: bearer(TEST_ADMIN_TOKEN),
          })
        ).json() as { data: { id: string; attributes: { console: boolean } }[] }
      ).data.map((k) => k.id);

    it('issues a console key named console, with a 12-hour limit and the idle time it allows', async () => {
      const issued = (await suite.t.inject({
        method: 'POST',
        url: '/token',
        payload: { email, password: PASSWORD, console: true },
      })) as LightMyRequestResponse;
      assert.equal(issued.statusCode, 201, issued.body);
      const body = issued.json() as {
        key: string;
        name: string;
        expiresAt: string;
        console: { idleTimeoutSeconds: number };
      };
      assert.equal(body.name, 'console');
      assert.deepEqual(body.console, { idleTimeoutSeconds: CONSOLE_KEY_IDLE_MS / 1000 });
      const hours = (Date.parse(body.expiresAt) - Date.now()) / 3_600_000;
      assert.ok(hours > 11.9 && hours <= 12, `${hours} hours`);
      const attributes = me(body.key).then((r) => r.json()) as Promise<{
        data: { attributes: { key: Record<string, unknown> } };
      }>;
      const { key } = (await attributes).data.attributes;
      assert.equal(key.console, true);
      const idleLeft = Date.parse(String(key.idleExpiresAt)) - Date.now();
      assert.ok(idleLeft > CONSOLE_KEY_IDLE_MS - MINUTE && idleLeft <= CONSOLE_KEY_IDLE_MS, String(idleLeft));
    });

    it('issues one for a signed-in session too, as the console does after a provider sign-in', async () => {
      const signIn = await suite.t.inject({
        method: 'POST',
        url: '/auth/sign-in/email',
        payload: { email, password: PASSWORD },
      });
      const token = (signIn.json() as { token: string }).token;
      const issued = await suite.t.inject({
        method: 'POST',
        url: '/token',
        headers: bearer(token),
        payload: { console: true },
      });
      assert.equal(issued.statusCode, 201, issued.body);
      assert.ok((issued.json() as { console?: unknown }).console);
    });

    it('refuses an expiresIn with it, and a console member that is not a boolean', async () => {
      const both = await suite.t.inject({
        method: 'POST',
        url: '/token',
        payload: { email, password: PASSWORD, console: true, expiresIn: 3600 },
      });
      assert.equal(both.statusCode, 400);
      assert.deepEqual(errorPointers(both), ['/data/attributes/expiresIn']);
      const notBoolean = await suite.t.inject({
        method: 'POST',
        url: '/token',
        payload: { email, password: PASSWORD, console: 'yes' },
      });
      assert.deepEqual(errorPointers(notBoolean), ['/data/attributes/console']);
    });

    it('stops working once unused for the idle time, while an ordinary key of the same age works', async () => {
      const idle = await consoleKey();
      const ordinary = await issueKey(suite.t, { email, password: PASSWORD });
      for (const key of [idle, ordinary]) await backdate(key.id, { createdAgoMs: CONSOLE_KEY_IDLE_MS + MINUTE });
      const refused = await me(idle.key);
      assert.equal(refused.statusCode, 401);
      assert.deepEqual(errorCodes(refused), ['API_KEY_EXPIRED']);
      assert.equal((await me(ordinary.key)).statusCode, 200);
    });

    it('is renewed by use: an old key used recently still works', async () => {
      const busy = await consoleKey();
      await backdate(busy.id, { createdAgoMs: 3 * CONSOLE_KEY_IDLE_MS, usedAgoMs: CONSOLE_KEY_IDLE_MS - 5 * MINUTE });
      assert.equal((await me(busy.key)).statusCode, 200);
    });

    it('is left out of key lists unless asked for', async () => {
      const listed = await consoleKey();
      const own = await issueKey(suite.t, { email, password: PASSWORD, name: 'script' });
      const plain = await keyIds('');
      assert.ok(plain.includes(own.id));
      assert.ok(!plain.includes(listed.id));
      assert.ok((await keyIds('&includeConsole=true')).includes(listed.id));
      const bad = await suite.t.inject({
        method: 'GET',
        url: '/admin/keys?includeConsole=maybe',
        headers: bearer(TEST_ADMIN_TOKEN),
      });
      assert.equal(bad.statusCode, 400);
      assert.equal(
        (bad.json() as { errors: { source: { parameter: string } }[] }).errors[0]!.source.parameter,
        'includeConsole',
      );
    });

    it('is deleted at sign-out (DELETE /me/key)', async () => {
      const session = await consoleKey();
      assert.equal(
        (await suite.t.inject({ method: 'DELETE', url: '/me/key', headers: bearer(session.key) })).statusCode,
        204,
      );
      assert.equal((await me(session.key)).statusCode, 401);
      assert.ok(!(await keyIds('&includeConsole=true')).includes(session.id));
    });

    it('is pruned by the retention job once idle or expired; working and ordinary keys stay', async () => {
      const idle = await consoleKey();
      const expired = await consoleKey();
      const fresh = await consoleKey();
      const used = await consoleKey();
      const ordinary = await issueKey(suite.t, { email, password: PASSWORD, name: 'old script' });
      await backdate(idle.id, { createdAgoMs: CONSOLE_KEY_IDLE_MS + MINUTE });
      await backdate(expired.id, { createdAgoMs: MINUTE, usedAgoMs: 1000, expiredAgoMs: 1000 });
      await backdate(used.id, { createdAgoMs: 5 * CONSOLE_KEY_IDLE_MS, usedAgoMs: MINUTE });
      await backdate(ordinary.id, { createdAgoMs: 10 * CONSOLE_KEY_IDLE_MS });
      const job = new RetentionJob({
        store: suite.t.ctx.store,
        settings: RETENTION_DEFAULTS,
        replayWindow: 100,
        resources: () => [],
        log: testLogger(),
        pruneConsoleKeys: (batchSize) => suite.t.ctx.auth.keys.pruneConsoleKeys(batchSize),
      });
      const pass = await job.run();
      await job.stop();
      assert.ok(pass.consoleKeys >= 2, JSON.stringify(pass));
      const left = await keyIds('&includeConsole=true&_limit=1000');
      assert.ok(!left.includes(idle.id), 'the idle console key went');
      assert.ok(!left.includes(expired.id), 'the expired console key went');
      for (const kept of [fresh, used, ordinary]) assert.ok(left.includes(kept.id), kept.id);
      assert.equal((await me(idle.key)).statusCode, 401);
    });

    it('adds the console column to a key table made before it, keeping its keys', async () => {
      const old = await issueKey(suite.t, { email, password: PASSWORD, name: 'from before' });
      const { store } = suite.t.ctx;
      await store.db.schema.alterTable('svc_api_keys').dropColumn('console').execute();
      await createApiKeyTable(store);
      const columns = (await store.dialect.listColumns(store.db, 'svc_api_keys')).map((c) => c.name);
      assert.ok(columns.includes('console'));
      assert.ok((await keyIds('')).includes(old.id), 'an old key is an ordinary key');
    });
  });
}
