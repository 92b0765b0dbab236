// The bounds on hostile input: body size (413), nesting depth, filter count, `in` list length and the
// total of list values (400), and pattern operators that could take super-linear time: list queries take
// no regex, and catastrophic `like`/`ilike` values answer promptly on every database.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { testDialects, type TestDialect } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { MAX_FILTERS, MAX_IN_VALUES, MAX_QUERY_VALUES } from '../../src/query/list-query.ts';
import { MAX_JSON_DEPTH } from '../../src/http/server/body-parsing.ts';
import { checkAnswer, FUZZ_OVERRIDES, FUZZ_RESOURCES, send, type Answer } from './fuzz-harness.ts';
import { nested, wide } from './hostile-arbitraries.ts';
import { probeRoleRegex } from './role-regex-probe.ts';

const BODY_LIMIT = 1048576;

/** Twenty plain text fields: enough `in` lists to pass SQLite's 32,766 bound parameters. */
const WIDE_FIELDS = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, { type: 'string' as const }]));

/** Patterns that take exponential or high-polynomial time in a backtracking matcher. */
const CATASTROPHIC_LIKE = [
  '%a'.repeat(50) + '%b',
  '%' + '_%'.repeat(100) + 'b',
  '%'.repeat(5000) + 'b',
  '_'.repeat(4000) + '%b',
  '\\%'.repeat(1000) + 'b',
  '['.repeat(500) + '%b',
];

function errorIn(response: Answer): { code: string; source?: { parameter?: string } } {
  return (response.json() as { errors: { code: string; source?: { parameter?: string } }[] }).errors[0]!;
}

for (const dialect of testDialects()) {
  describe(`input limits on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    let postId: string;
    /** Left alone by the other tests: long runs of `a` for the pattern test to fail to match. */
    let longPostId: string;
    before(async () => {
      t = await startTestApp(dialect, {
        ...FUZZ_OVERRIDES,
        // The pattern bounds would refuse the catastrophic patterns below before any match: raised here
        // so that the matchers themselves are what this suite tests (like-pattern-bounds.test.ts tests the bounds).
        server: {
          port: 0,
          host: '127.0.0.1',
          cors: { origins: ['http://localhost:5173'] },
          bodyLimitBytes: BODY_LIMIT,
          likePatternMaxLength: 10_000,
          likePatternMaxWildcards: 10_000,
        },
        resources: { ...FUZZ_RESOURCES, wide: { fields: WIDE_FIELDS, permissions: { editor: { read: true } } } },
      });
      editor = await t.as('editor');
      const created = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: { title: 'a'.repeat(200), body: 'a'.repeat(200_000) },
      });
      assert.equal(created.statusCode, 201, created.body);
      longPostId = (created.json() as { data: { id: string } }).data.id;
      const target = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title: 'Target' } });
      postId = (target.json() as { data: { id: string } }).data.id;
    });
    after(() => t.close());

    const expect = async (
      options: Parameters<typeof send>[1],
      expectation: { ok?: number[]; errors?: Parameters<typeof checkAnswer>[1]['errors'] },
    ) => {
      const response = await send(t, { auth: editor, ...options });
      checkAnswer(response, {
        ...expectation,
        hidden: [],
        label: `${options.method} ${String(options.url).slice(0, 200)}`,
      });
      return response;
    };

    it('answers 413 PAYLOAD_TOO_LARGE for a body one byte over the limit, on every write', async () => {
      const over = `{"body":"${'a'.repeat(BODY_LIMIT - 11 + 1)}"}`;
      assert.equal(Buffer.byteLength(over), BODY_LIMIT + 1);
      for (const [method, url] of [
        ['POST', '/v1/posts'],
        ['PUT', `/v1/posts/${postId}`],
        ['PATCH', `/v1/posts/${postId}`],
      ] as const) {
        for (const type of ['application/json', 'application/vnd.api+json', 'text/plain']) {
          const response = await expect(
            { method, url, payload: over, headers: { 'content-type': type } },
            { errors: ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] },
          );
          if (type !== 'text/plain') assert.equal(response.statusCode, 413);
        }
      }
    });

    it('accepts a body of exactly the limit', async () => {
      const exact = `{"body":"${'a'.repeat(BODY_LIMIT - 11)}"}`;
      assert.equal(Buffer.byteLength(exact), BODY_LIMIT);
      const response = await expect(
        {
          method: 'PATCH',
          url: `/v1/posts/${postId}`,
          payload: exact,
          headers: { 'content-type': 'application/json' },
        },
        { ok: [200] },
      );
      assert.equal(response.statusCode, 200);
    });

    it('refuses a declared Content-Length over the limit, and one that does not match the body', async () => {
      await expect(
        {
          method: 'POST',
          url: '/v1/posts',
          payload: '{"title":"x"}',
          headers: { 'content-type': 'application/json', 'content-length': String(BODY_LIMIT * 4) },
        },
        { errors: ['PAYLOAD_TOO_LARGE', 'INVALID_JSON'] },
      );
      await expect(
        {
          method: 'POST',
          url: '/v1/posts',
          payload: '{"title":"x"}',
          headers: { 'content-type': 'application/json', 'content-length': '5' },
        },
        { errors: ['INVALID_JSON'] },
      );
    });

    it(`refuses JSON nested more than ${MAX_JSON_DEPTH} levels with 400 INVALID_JSON, and stores ${MAX_JSON_DEPTH} levels`, async () => {
      // Regression: 3,000 levels (well inside the body limit) overflowed the stack of JSON.parse's reviver
      // and was reported as "not valid JSON"; deeper parsers downstream could have failed with a 500.
      for (const depth of [MAX_JSON_DEPTH + 1, 5_000, 100_000]) {
        const response = await expect(
          {
            method: 'PATCH',
            url: `/v1/posts/${postId}`,
            payload: nested(depth),
            headers: { 'content-type': 'application/json' },
          },
          { errors: ['INVALID_JSON'] },
        );
        assert.match(errorIn(response).code, /INVALID_JSON/);
      }
      // `{"title":…,"tags":[…]}`: the object is one level, so the array may nest one less.
      const deepest = await expect(
        {
          method: 'PATCH',
          url: `/v1/posts/${postId}`,
          payload: nested(MAX_JSON_DEPTH - 1),
          headers: { 'content-type': 'application/json' },
        },
        { ok: [200] },
      );
      assert.equal(
        JSON.stringify((deepest.json() as { data: { attributes: { tags: unknown } } }).data.attributes.tags).length,
        2 * (MAX_JSON_DEPTH - 1) + 1,
      );
      // Brackets inside strings are text, not nesting.
      await expect(
        {
          method: 'PATCH',
          url: `/v1/posts/${postId}`,
          payload: JSON.stringify({ body: '['.repeat(10_000) }),
          headers: { 'content-type': 'application/json' },
        },
        { ok: [200] },
      );
    });

    it('stores a body that is wide instead of deep: a flat array or object filling the body limit', async () => {
      // Regression: a 500,000-element array was spread into one push() call, overflowing the stack → 500.
      await expect(
        {
          method: 'PATCH',
          url: `/v1/posts/${postId}`,
          payload: wide(500_000),
          headers: { 'content-type': 'application/json' },
        },
        { ok: [200] },
      );
      await expect(
        {
          method: 'PATCH',
          url: `/v1/posts/${postId}`,
          payload: wide(80_000, 'tags', true),
          headers: { 'content-type': 'application/json' },
        },
        { ok: [200] },
      );
    });

    it(`takes ${MAX_FILTERS} filters and refuses ${MAX_FILTERS + 1} with 400 INVALID_QUERY_PARAMS`, async () => {
      const posts = t.ctx.registry.find('posts')!;
      // Operators whose value is ignored or taken as text, so every filter is valid on its own.
      const filters: string[] = [];
      for (const field of posts.fieldNames) {
        for (const op of ['is_null', 'is_not_null', 'like', 'ilike'] as const) {
          if (posts.fields.get(field)!.type.operators.has(op)) filters.push(`${field}__${op}=x`);
        }
      }
      for (const op of ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin'])
        filters.push(`title__${op}=x`, `body__${op}=x`, `author_id__${op}=x`);
      assert.ok(filters.length > MAX_FILTERS, `only ${filters.length} distinct filters`);
      await expect({ method: 'GET', url: `/v1/posts?${filters.slice(0, MAX_FILTERS).join('&')}` }, { ok: [200] });
      const refused = await expect(
        { method: 'GET', url: `/v1/posts?${filters.slice(0, MAX_FILTERS + 1).join('&')}` },
        { errors: ['INVALID_QUERY_PARAMS'] },
      );
      assert.equal(errorIn(refused).source?.parameter, 'filter');
    });

    it(`takes an in/nin list of ${MAX_IN_VALUES} values and refuses ${MAX_IN_VALUES + 1}`, async () => {
      const list = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`).join(',');
      for (const op of ['in', 'nin']) {
        await expect({ method: 'GET', url: `/v1/posts?title__${op}=${list(MAX_IN_VALUES)}` }, { ok: [200] });
        const refused = await expect(
          { method: 'GET', url: `/v1/posts?title__${op}=${list(MAX_IN_VALUES + 1)}` },
          { errors: ['INVALID_QUERY_PARAMS'] },
        );
        assert.equal(errorIn(refused).source?.parameter, `title__${op}`);
      }
    });

    it(`takes ${MAX_QUERY_VALUES} list values in one request and refuses more, instead of a 500 from SQLite's parameter limit`, async () => {
      // Regression: 40 lists of 1,000 values bound 40,000 parameters; SQLite allows 32,766 → 500 RESOURCE_FETCH_ERROR.
      const list = Array.from({ length: MAX_IN_VALUES }, (_, i) => `v${i}`).join(',');
      const lists = (n: number) =>
        Array.from({ length: n }, (_, i) => `f${i >> 1}__${i % 2 === 0 ? 'in' : 'nin'}=${list}`).join('&');
      const per = MAX_QUERY_VALUES / MAX_IN_VALUES;
      await expect({ method: 'GET', url: `/v1/wide?${lists(per)}` }, { ok: [200] });
      for (const n of [per + 1, 40]) {
        const refused = await expect(
          { method: 'GET', url: `/v1/wide?${lists(n)}` },
          { errors: ['INVALID_QUERY_PARAMS'] },
        );
        assert.equal(errorIn(refused).source?.parameter, 'filter');
      }
    });

    it('takes no regex (nor any other role-rule-only operator) in a list query', async () => {
      for (const op of ['regex', 'contains', 'REGEX', 'similar', 'match', 'glob']) {
        const response = await expect(
          { method: 'GET', url: `/v1/posts?title__${op}=${encodeURIComponent('^(a+)+$')}` },
          { errors: ['INVALID_QUERY_PARAMS'] },
        );
        assert.match(JSON.stringify(response.json()), /Unknown operator/);
      }
    });

    it('answers catastrophic like/ilike patterns against long values promptly', async () => {
      // Regression: on SQLite, ilike ran as a backtracking RegExp (svc_ilike); `%a%a…%b` against 200 `a`s hung the process.
      // A synchronous hang inside SQLite cannot be cut short by a timer, so milder patterns on one short row go first:
      // a backtracking matcher takes ~0.05 s and ~1.5 s on them, and fails the test before the severe ones could hang it.
      const short = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: { title: 'a'.repeat(30) },
      });
      const shortId = (short.json() as { data: { id: string } }).data.id;
      for (const repeats of [6, 9]) {
        const started = performance.now();
        await expect(
          {
            method: 'GET',
            url: `/v1/posts?id=${shortId}&title__ilike=${encodeURIComponent('%a'.repeat(repeats) + '%b')}`,
          },
          { ok: [200] },
        );
        assert.ok(
          performance.now() - started < 500,
          `ilike with ${repeats} wildcards took ${Math.round(performance.now() - started)} ms`,
        );
      }
      for (const pattern of CATASTROPHIC_LIKE) {
        for (const field of ['title', 'body']) {
          for (const op of ['like', 'ilike']) {
            const started = performance.now();
            const response = await expect(
              { method: 'GET', url: `/v1/posts?${field}__${op}=${encodeURIComponent(pattern)}` },
              { ok: [200] },
            );
            const listed = response.json() as { data: { id: string }[] };
            assert.ok(
              !listed.data.some((row) => row.id === longPostId),
              `${field}__${op}=${pattern.slice(0, 20)}… matched`,
            );
            assert.ok(
              performance.now() - started < 2_000,
              `${field}__${op}=${pattern.slice(0, 20)}… took ${Math.round(performance.now() - started)} ms`,
            );
          }
        }
      }
    });
  });
}

/**
 * Role rules may use `regex`, written by the operator but run against values any writer chooses. On
 * PostgreSQL the database's own engine runs it; on SQLite, JavaScript's backtracking RegExp does, inside a
 * synchronous SQLite call that no timer can interrupt, so there the probe runs in a child process.
 */
const CHILD_PROBE = `
import { probeRoleRegex } from ${JSON.stringify(fileURLToPath(new URL('./role-regex-probe.ts', import.meta.url)))};
const result = await probeRoleRegex(process.env.PROBE_DIALECT, () => process.stdout.write('ready\\n'));
process.stdout.write(JSON.stringify(result));
process.exit(0);
`;

/** Runs the probe in a child; the 3 s clock starts when the list request is about to be sent. */
async function probeInChild(dialect: TestDialect): Promise<{ status: number; ms: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD_PROBE], {
    env: { ...process.env, PROBE_DIALECT: dialect },
  });
  let output = '';
  let watchdog: NodeJS.Timeout | undefined;
  let startup: NodeJS.Timeout | undefined;
  try {
    const finished = new Promise<string>((resolve, reject) => {
      startup = setTimeout(() => reject(new Error('the probe did not start within 60 s')), 60_000);
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('ready\n') && watchdog === undefined) {
          clearTimeout(startup);
          watchdog = setTimeout(() => reject(new Error('the list did not answer within 3 s')), 3_000);
        }
      });
      child.on('exit', () => resolve(output));
    });
    return JSON.parse((await finished).split('ready\n')[1] ?? '') as { status: number; ms: number };
  } finally {
    clearTimeout(startup);
    clearTimeout(watchdog);
    child.kill('SIGKILL');
  }
}

for (const dialect of testDialects()) {
  describe(`role-rule regex on ${dialect}`, () => {
    it('cannot hang the process with a catastrophic pattern against a value a writer chose', async () => {
      const result = dialect === 'sqlite' ? await probeInChild(dialect) : await probeRoleRegex(dialect);
      assert.equal(result.status, 200);
      assert.ok(result.ms < 2_000, `took ${result.ms} ms`);
    });
  });
}
