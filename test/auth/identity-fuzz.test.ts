// Every route of the identity component (better-auth under /auth) gets the fuzz corpus, as JSON bodies
// and as query strings, with and without the right password: no answer is a 5xx, every error is JSON
// with a code, and every log line is one JSON object (nothing like a stack on standard error either).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { betterAuth } from 'better-auth';
import fc from 'fast-check';
import { buildApp } from '../../src/server.ts';
import { buildIdentityOptions } from '../../src/auth/identity/build-identity-options.ts';
import { answerIdentityFailures } from '../../src/auth/identity/identity-failures.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { createVerificationMailer } from '../../src/auth/identity/verification-mailer.ts';
import { createStore } from '../../src/store/create-store.ts';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { testConfig } from '../helpers/test-config.ts';
import { encodeComponent, hostileJson, hostileString, SPECIAL_STRINGS } from '../fuzz/hostile-arbitraries.ts';
import { fuzz } from '../fuzz/fuzz-harness.ts';
import { PASSWORD, signUp, testLogger, uniqueEmail } from './auth-fixtures.ts';

const RUNS = 250;
const TRUSTED_ORIGIN = 'http://localhost:5173';

/** Members the identity endpoints read: a fuzzed body uses these names most of the time. */
const MEMBERS = [
  'email',
  'password',
  'name',
  'callbackURL',
  'newUserCallbackURL',
  'errorCallbackURL',
  'rememberMe',
  'image',
  'token',
  'newPassword',
  'currentPassword',
  'revokeOtherSessions',
  'newEmail',
  'redirectTo',
  'provider',
  'providerId',
  'accountId',
  'idToken',
  'disableRedirect',
  'scopes',
  'requestSignUp',
  'userId',
  'sessionToken',
  '__proto__',
  'constructor',
] as const;

/** Values that broke the identity component before: header bytes above U+00FF, line separators, odd URLs. */
const CALLBACKS = [
  '/\u3000/x',
  '/\u2028',
  '/\u2029x',
  '/a\u00ffb',
  '/\u0100',
  '/😀',
  'http://localhost:3000/\u3000',
  '//evil.example/x',
  '/\r\nSet-Cookie: a=b',
  '/%E3%80%80',
  'javascript:alert(1)',
  '\u0000',
  '/\ud800',
  '',
];

interface Route {
  method: 'GET' | 'POST';
  path: string;
}

/** better-auth's endpoints as configured for svc (plugins included), with path parameters filled in later. */
function identityRoutes(options: ReturnType<typeof buildIdentityOptions>): Route[] {
  const auth = betterAuth({ ...options, database: undefined });
  const routes: Route[] = [];
  for (const endpoint of Object.values(auth.api) as { path?: string; options?: { method?: string | string[] } }[]) {
    if (!endpoint.path) continue; // server-only endpoints have no route
    const methods = [endpoint.options?.method ?? 'GET'].flat();
    for (const method of methods)
      if (method === 'GET' || method === 'POST') routes.push({ method, path: endpoint.path });
  }
  return routes;
}

/** Captures the service log's raw text, so a line that is not JSON is seen as such. */
function rawLog(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

function assertJsonLines(text: string): void {
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let parsed: unknown;
    assert.doesNotThrow(() => (parsed = JSON.parse(line)), `a log line is not JSON: ${line.slice(0, 300)}`);
    assert.ok(
      typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed),
      `a log line is not a JSON object: ${line.slice(0, 300)}`,
    );
  }
}

/** An error answer names its code: better-auth's `{code, message}` or a JSON:API document. */
function errorCode(body: string): unknown {
  const parsed = JSON.parse(body) as { code?: unknown; errors?: { code?: unknown }[] };
  return parsed.errors?.[0]?.code ?? parsed.code;
}

for (const dialect of testDialects()) {
  describe(`the identity routes under hostile input on ${dialect}`, () => {
    let database: TestDatabase;
    let app: FastifyInstance;
    let routes: Route[];
    const log = rawLog();
    const stderr: string[] = [];
    const writeStderr = process.stderr.write.bind(process.stderr);
    const email = uniqueEmail('fuzzed');

    before(async () => {
      database = await createTestDatabase(dialect);
      // The login throttle would soon refuse the known email before its password is checked: off here.
      const config = testConfig(database.url, {
        auth: {
          ...testConfig(database.url).auth,
          loginThrottle: { enabled: false, maxFailuresPerAccount: 10, maxFailuresPerAddress: 50, windowMs: 60000 },
        },
      });
      const built = await buildApp({ config, logger: { level: 'info', stream: log.stream }, startWorkers: false });
      app = built.app;
      await app.ready();
      const store = createStore(database.url);
      try {
        const options = buildIdentityOptions({
          config,
          store,
          secret: 'x'.repeat(40),
          mailer: createVerificationMailer(config.auth.email, testLogger()),
          log: testLogger(),
        });
        routes = identityRoutes(options);
      } finally {
        await store.close();
      }
      assert.ok(routes.length >= 20, `only ${routes.length} identity routes found`);
      await signUp({ inject: (o: InjectOptions) => app.inject(o) } as Parameters<typeof signUp>[0], email);
      process.stderr.write = ((chunk: string | Uint8Array) => {
        stderr.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
        return true;
      }) as typeof process.stderr.write;
    });
    after(async () => {
      process.stderr.write = writeStderr;
      await app?.close();
      await database?.drop();
    });

    async function check(options: InjectOptions, label: string): Promise<void> {
      const response = await app.inject(options);
      const what = `${label}: ${options.method} ${String(options.url).slice(0, 200)} ${JSON.stringify(options.payload ?? '').slice(0, 300)}`;
      assert.ok(response.statusCode < 500, `${response.statusCode} ${response.body.slice(0, 300)} for ${what}`);
      if (response.statusCode >= 400) {
        assert.doesNotThrow(
          () => errorCode(response.body),
          `a ${response.statusCode} that is not JSON for ${what}: ${response.body.slice(0, 200)}`,
        );
        assert.equal(
          typeof errorCode(response.body),
          'string',
          `a ${response.statusCode} without a code for ${what}: ${response.body.slice(0, 200)}`,
        );
      }
    }

    const pathOf = (route: Route, parameter: string) =>
      `/auth${route.path.replace(/:[a-zA-Z]+/g, encodeComponent(parameter))}`;

    it('answers a callbackURL that cannot be a header with a 4xx code, right password or not', async () => {
      for (const route of routes.filter((r) => r.method === 'POST')) {
        for (const callbackURL of CALLBACKS) {
          for (const password of [PASSWORD, 'not the password']) {
            const payload = {
              email,
              password,
              name: 'N',
              callbackURL,
              newUserCallbackURL: callbackURL,
              errorCallbackURL: callbackURL,
              provider: 'github',
            };
            await check(
              { method: 'POST', url: pathOf(route, 'x'), payload, headers: { origin: TRUSTED_ORIGIN } },
              'callback',
            );
          }
        }
      }
      for (const route of routes.filter((r) => r.method === 'GET')) {
        for (const callbackURL of CALLBACKS) {
          await check(
            {
              method: 'GET',
              url: `${pathOf(route, 'x')}?callbackURL=${encodeComponent(callbackURL)}&token=x&error=${encodeComponent(callbackURL)}`,
            },
            'callback',
          );
        }
      }
      for (const callbackURL of ['/\u3000/x', '/\u2028']) {
        const signIn = await app.inject({
          method: 'POST',
          url: '/auth/sign-in/email',
          payload: { email, password: PASSWORD, callbackURL },
        });
        assert.equal(signIn.statusCode, 400, signIn.body);
        assert.deepEqual(
          signIn.json().errors.map((e: { code: string; source?: unknown }) => [e.code, e.source]),
          [['INVALID_RESOURCE_DATA', { pointer: '/callbackURL' }]],
        );
        const form = await app.inject({
          method: 'POST',
          url: '/auth/sign-in/email',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ email, password: PASSWORD, callbackURL }).toString(),
        });
        assert.equal(form.statusCode, 400, form.body);
        const query = await app.inject({
          method: 'GET',
          url: `/auth/verify-email?token=x&callbackURL=${encodeURIComponent(callbackURL)}`,
        });
        assert.deepEqual(
          query.json().errors.map((e: { code: string; source?: unknown }) => [e.code, e.source]),
          [['INVALID_QUERY_PARAMS', { parameter: 'callbackURL' }]],
        );
      }
    });

    it('never answers 5xx to fuzzed JSON bodies and query strings on any route', async () => {
      const member = fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...MEMBERS) },
        { weight: 1, arbitrary: hostileString },
      );
      const value = fc.oneof(
        { weight: 3, arbitrary: hostileString },
        { weight: 1, arbitrary: hostileJson },
        { weight: 1, arbitrary: fc.constantFrom(email, PASSWORD, ...CALLBACKS, ...SPECIAL_STRINGS) },
      );
      const body = fc
        .tuple(fc.dictionary(member, value, { maxKeys: 6 }), fc.boolean())
        .map(([fields, known]) => (known ? { email, password: PASSWORD, ...fields } : fields));
      const query = fc.array(
        fc.tuple(
          member,
          value.map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))),
        ),
        { maxLength: 5 },
      );
      await fuzz(
        RUNS,
        [fc.constantFrom(...routes), hostileString, body, query, fc.boolean()],
        async (route, parameter, payload, params, fromPage) => {
          const search = params.map(([name, text]) => `${encodeComponent(name)}=${encodeComponent(text)}`).join('&');
          const url = `${pathOf(route, parameter)}${search ? `?${search}` : ''}`;
          const headers = fromPage ? { origin: TRUSTED_ORIGIN } : {};
          await check(
            route.method === 'POST' ? { method: 'POST', url, payload, headers } : { method: 'GET', url, headers },
            'fuzz',
          );
        },
      );
    });

    it('answers what the identity component throws with 400 BAD_REQUEST, and leaves an unreachable database to the 503', async () => {
      const thrown = new TypeError('Cannot convert argument to a ByteString');
      const failing = answerIdentityFailures(
        async () => Promise.reject(thrown),
        () => false,
        testLogger(),
      );
      await assert.rejects(
        failing(new Request('http://localhost/auth/ok')),
        (error: unknown) => error instanceof ApiError && error.code === 'BAD_REQUEST' && error.cause === thrown,
      );
      const unreachable = answerIdentityFailures(
        async () => Promise.reject(thrown),
        (error) => error === thrown,
        testLogger(),
      );
      await assert.rejects(unreachable(new Request('http://localhost/auth/ok')), (error: unknown) => error === thrown);
    });

    it('logged one JSON object per line and printed nothing on standard error', () => {
      assertJsonLines(log.text());
      assert.ok(log.text().length > 0, 'the log was captured');
      assert.deepEqual(stderr, [], 'something was printed on standard error');
    });
  });
}
