// Sign-up and sign-in over real HTTP from scripts and servers (Node's fetch, undici, curl): no Origin,
// no cookies, whatever Sec-Fetch-* headers the client adds. And the check that stays for browsers: a
// request with cookies, or one naming an Origin, must come from the service's own origin or one in
// auth.trustedOrigins.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { request as undiciRequest, fetch as undiciFetch } from 'undici';
import { buildApp } from '../../src/server.ts';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { testConfig } from '../helpers/test-config.ts';
import { PASSWORD, uniqueEmail } from './auth-fixtures.ts';

const run = promisify(execFile);
const OWN_ORIGIN = 'http://svc.test';
const TRUSTED_ORIGIN = 'http://app.example';
const FOREIGN_ORIGIN = 'http://evil.example';

interface Answer {
  status: number;
  code: string | undefined;
  cookies: string[];
}

function answerOf(status: number, text: string, cookies: string[]): Answer {
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { code?: string }).code;
  } catch {
    code = undefined;
  }
  return { status, code, cookies };
}

/** undici's request sends exactly the headers given (no Sec-Fetch-*, no Origin). */
async function post(
  base: string,
  path: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await undiciRequest(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const setCookie = response.headers['set-cookie'];
  const cookies = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie];
  return answerOf(response.statusCode, await response.body.text(), cookies);
}

for (const dialect of testDialects()) {
  describe(`sign-up and sign-in over HTTP without a browser on ${dialect}`, { timeout: 300_000 }, () => {
    let database: TestDatabase;
    let app: FastifyInstance;
    let base: string;

    before(async () => {
      database = await createTestDatabase(dialect);
      const config = testConfig(database.url, {
        auth: {
          basePath: '/auth',
          requireEmailVerification: false,
          defaultRole: 'user',
          baseUrl: OWN_ORIGIN,
          social: {},
          email: { from: 'svc <no-reply@localhost>' },
          trustedOrigins: [TRUSTED_ORIGIN],
        },
      });
      ({ app } = await buildApp({ config, startWorkers: false }));
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      assert.ok(address && typeof address === 'object');
      base = `http://127.0.0.1:${address.port}`;
    });
    after(async () => {
      await app.close();
      await database.drop();
    });

    async function signedUp(): Promise<string> {
      const email = uniqueEmail('script');
      const answer = await post(base, '/auth/sign-up/email', { name: 'Script', email, password: PASSWORD });
      assert.equal(answer.status, 200);
      return email;
    }

    it("signs up and in with Node's fetch, which adds Sec-Fetch-Mode: cors", async () => {
      const email = uniqueEmail('fetch');
      const signUp = await fetch(`${base}/auth/sign-up/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Fetch', email, password: PASSWORD }),
      });
      assert.equal(signUp.status, 200, await signUp.clone().text());
      const signIn = await fetch(`${base}/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      assert.equal(signIn.status, 200, await signIn.clone().text());
      assert.ok(signIn.headers.getSetCookie().some((c) => c.startsWith('svc.session_token=')));
    });

    it("signs up and in with undici's request and undici's fetch", async () => {
      const email = uniqueEmail('undici');
      assert.equal(
        (await post(base, '/auth/sign-up/email', { name: 'Undici', email, password: PASSWORD })).status,
        200,
      );
      assert.equal((await post(base, '/auth/sign-in/email', { email, password: PASSWORD })).status, 200);
      const viaFetch = await undiciFetch(`${base}/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      assert.equal(viaFetch.status, 200, await viaFetch.text());
    });

    it('signs up and in with curl, JSON and form bodies', async () => {
      const email = uniqueEmail('curl');
      const curl = async (path: string, args: string[]): Promise<string> =>
        (
          await run('curl', [
            '-s',
            '-o',
            '/dev/null',
            '-w',
            '%{http_code}',
            '--max-time',
            '20',
            ...args,
            `${base}${path}`,
          ])
        ).stdout;
      assert.equal(
        await curl('/auth/sign-up/email', [
          '-H',
          'content-type: application/json',
          '-d',
          JSON.stringify({ name: 'Curl', email, password: PASSWORD }),
        ]),
        '200',
      );
      assert.equal(
        await curl('/auth/sign-in/email', [
          '--data-urlencode',
          `email=${email}`,
          '--data-urlencode',
          `password=${PASSWORD}`,
        ]),
        '200',
      );
    });

    const scriptHeaders: Array<{ name: string; headers: Record<string, string> }> = [
      { name: 'Sec-Fetch-Mode: cors alone', headers: { 'sec-fetch-mode': 'cors' } },
      {
        name: 'a same-origin cors set',
        headers: { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' },
      },
      {
        name: 'a cross-site navigation set',
        headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' },
      },
      { name: 'Sec-Fetch-Site: none', headers: { 'sec-fetch-site': 'none' } },
    ];
    for (const scenario of scriptHeaders) {
      it(`signs in without Origin and cookies whatever the Fetch Metadata: ${scenario.name}`, async () => {
        const email = await signedUp();
        const answer = await post(base, '/auth/sign-in/email', { email, password: PASSWORD }, scenario.headers);
        assert.equal(answer.status, 200, answer.code);
      });
    }

    // What a browser sends: a request from a page always names its Origin, and carries its cookies.
    const browserRequests: Array<{
      name: string;
      headers: (cookie: string) => Record<string, string>;
      status: number;
      code?: string;
    }> = [
      {
        name: 'cookies from a foreign origin',
        headers: (cookie) => ({
          cookie,
          origin: FOREIGN_ORIGIN,
          'sec-fetch-site': 'cross-site',
          'sec-fetch-mode': 'cors',
        }),
        status: 403,
        code: 'INVALID_ORIGIN',
      },
      { name: 'cookies and no Origin', headers: (cookie) => ({ cookie }), status: 403, code: 'MISSING_OR_NULL_ORIGIN' },
      {
        name: 'cookies and Origin: null',
        headers: (cookie) => ({ cookie, origin: 'null' }),
        status: 403,
        code: 'MISSING_OR_NULL_ORIGIN',
      },
      {
        name: 'cookies from an origin in auth.trustedOrigins',
        headers: (cookie) => ({
          cookie,
          origin: TRUSTED_ORIGIN,
          'sec-fetch-site': 'cross-site',
          'sec-fetch-mode': 'cors',
        }),
        status: 200,
      },
      {
        name: "cookies from the service's own origin",
        headers: (cookie) => ({
          cookie,
          origin: OWN_ORIGIN,
          'sec-fetch-site': 'same-origin',
          'sec-fetch-mode': 'cors',
        }),
        status: 200,
      },
      {
        name: 'a first sign-in from a foreign page (no cookies)',
        headers: () => ({ origin: FOREIGN_ORIGIN, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' }),
        status: 403,
        code: 'INVALID_ORIGIN',
      },
      {
        name: 'a cross-site form post from a sandboxed page',
        headers: () => ({ origin: 'null', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' }),
        status: 403,
      },
      {
        name: 'a first sign-in from a trusted page (no cookies)',
        headers: () => ({ origin: TRUSTED_ORIGIN, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' }),
        status: 200,
      },
    ];
    for (const scenario of browserRequests) {
      it(`answers ${scenario.status}${scenario.code ? ` ${scenario.code}` : ''} to a sign-in with ${scenario.name}`, async () => {
        const email = await signedUp();
        const first = await post(base, '/auth/sign-in/email', { email, password: PASSWORD });
        const cookie = first.cookies.map((c) => c.split(';')[0]).join('; ');
        assert.ok(cookie.includes('svc.session_token='));
        const answer = await post(base, '/auth/sign-in/email', { email, password: PASSWORD }, scenario.headers(cookie));
        assert.equal(answer.status, scenario.status, answer.code);
        if (scenario.code) assert.equal(answer.code, scenario.code);
      });
    }

    it('refuses a sign-up with cookies from a foreign origin and accepts it from a trusted one', async () => {
      const refused = await post(
        base,
        '/auth/sign-up/email',
        { name: 'X', email: uniqueEmail('csrf'), password: PASSWORD },
        { cookie: 'svc.session_token=x', origin: FOREIGN_ORIGIN },
      );
      assert.equal(refused.status, 403);
      assert.equal(refused.code, 'INVALID_ORIGIN');
      const accepted = await post(
        base,
        '/auth/sign-up/email',
        { name: 'X', email: uniqueEmail('csrf'), password: PASSWORD },
        { cookie: 'svc.session_token=x', origin: TRUSTED_ORIGIN },
      );
      assert.equal(accepted.status, 200, accepted.code);
    });
  });
}
