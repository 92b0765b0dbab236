// A caller's `like`/`ilike` value against a long text: a 6,000-character pattern on a 200 KB body took
// 5.6 s of SQLite's event loop (and as long of a PostgreSQL backend). Patterns past
// server.likePatternMaxLength / likePatternMaxWildcards are refused before any query runs, and the
// largest allowed one is decided quickly on both databases while /healthz keeps answering.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SERVER_LIMIT_DEFAULTS } from '../../src/config/config-schema.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

const MAX_LENGTH = SERVER_LIMIT_DEFAULTS.likePatternMaxLength;
const MAX_WILDCARDS = SERVER_LIMIT_DEFAULTS.likePatternMaxWildcards;
const BODY = 'a'.repeat(200_000);
/** A middle segment as long as allowed, with every wildcard left after the two `%` as a `_`. */
const WITH_UNDERSCORES = `%${`${'a'.repeat(5)}_`.repeat(MAX_WILDCARDS - 2)}`.padEnd(MAX_LENGTH - 2, 'a') + 'b%';

interface Timed {
  status: number;
  document: { data?: unknown[]; errors?: { code: string; source?: { parameter?: string }; detail: string }[] };
  ms: number;
}

for (const dialect of testDialects()) {
  describe(`like/ilike pattern bounds (${dialect})`, () => {
    let t: TestApp;
    let baseUrl: string;
    let editor: string;

    const list = async (parameter: string, pattern: string): Promise<Timed> => {
      const started = performance.now();
      const response = await fetch(`${baseUrl}/v1/posts?fields=title&${parameter}=${encodeURIComponent(pattern)}`, {
        headers: { authorization: editor },
      });
      const document = (await response.json()) as Timed['document'];
      return { status: response.status, document, ms: performance.now() - started };
    };

    before(async () => {
      t = await startTestApp(dialect);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
      baseUrl = `http://127.0.0.1:${address.port}`;
      editor = await t.as('editor');
      const created = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: { title: 'long', body: BODY },
      });
      assert.equal(created.statusCode, 201, created.body);
      // Warm up the connection and the list path, so the timings below measure the pattern only.
      assert.equal((await list('title__like', 'long')).status, 200);
    });

    after(async () => {
      await t.close();
    });

    it('refuses the 6,000-character pattern within 100 ms, naming the parameter', async () => {
      for (const parameter of ['body__ilike', 'body__like']) {
        const answer = await list(parameter, `%${'a'.repeat(6_000)}b`);
        assert.equal(answer.status, 400);
        assert.equal(answer.document.errors?.[0]?.code, 'INVALID_QUERY_PARAMS');
        assert.equal(answer.document.errors?.[0]?.source?.parameter, parameter);
        assert.match(answer.document.errors?.[0]?.detail ?? '', new RegExp(`at most ${MAX_LENGTH} characters`));
        assert.ok(answer.ms < 100, `${parameter} answered in ${answer.ms.toFixed(0)} ms`);
      }
    });

    it('refuses more wildcards than allowed, and counts escaped ones as literals', async () => {
      const tooMany = await list('body__ilike', '%a'.repeat(MAX_WILDCARDS + 1));
      assert.equal(tooMany.status, 400);
      assert.equal(tooMany.document.errors?.[0]?.source?.parameter, 'body__ilike');
      assert.match(tooMany.document.errors?.[0]?.detail ?? '', new RegExp(`at most ${MAX_WILDCARDS} wildcards`));
      const escaped = await list('body__like', `${'\\%'.repeat(MAX_WILDCARDS + 1)}`);
      assert.equal(escaped.status, 200, JSON.stringify(escaped.document));
      const atBound = await list('body__like', `${'_'.repeat(MAX_WILDCARDS)}`);
      assert.equal(atBound.status, 200);
    });

    it('decides the largest allowed patterns on the 200 KB text in under a second each', async () => {
      const middle = `%${'a'.repeat(MAX_LENGTH - 3)}b%`;
      const cases: [string, string, number][] = [
        ['body__ilike', middle, 0],
        ['body__like', middle, 0],
        ['body__ilike', WITH_UNDERSCORES, 0],
        ['body__ilike', `%${'A'.repeat(MAX_LENGTH - 2)}%`, 1],
        ['body__like', `%${'a'.repeat(MAX_LENGTH - 2)}%`, 1],
        ['body__ilike', `${'%a'.repeat(MAX_WILDCARDS - 1)}%b`, 0],
        ['body__like', `%${'a'.repeat(MAX_LENGTH - 2)}b`, 0],
      ];
      for (const [parameter, pattern, found] of cases) {
        const answer = await list(parameter, pattern);
        assert.equal(answer.status, 200, JSON.stringify(answer.document));
        assert.equal(answer.document.data?.length, found, `${parameter}=${pattern.slice(0, 12)}…`);
        assert.ok(answer.ms < 1_000, `${parameter}=${pattern.slice(0, 12)}… took ${answer.ms.toFixed(0)} ms`);
      }
    });

    it('keeps /healthz answering while the largest allowed patterns run', async () => {
      // Patterns not run before: a page already read would come from the read cache.
      const patterns = [`%${'a'.repeat(MAX_LENGTH - 3)}c%`, WITH_UNDERSCORES.replace('b%', 'c%')];
      for (const pattern of patterns) {
        const listed = list('body__ilike', pattern);
        const started = performance.now();
        const health = await fetch(`${baseUrl}/healthz`);
        const healthMs = performance.now() - started;
        assert.equal(health.status, 200);
        assert.equal((await listed).status, 200);
        assert.ok(healthMs < 500, `/healthz took ${healthMs.toFixed(0)} ms beside the list`);
      }
    });
  });
}
