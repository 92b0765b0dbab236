// The login throttle over real HTTP: failed /token and sign-in attempts are limited per account
// (email) and per client address, atomically (concurrent guesses included), shared between nodes
// through Redis; a throttled account answers the same 429 whether it exists and whatever the password.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server.ts';
import type { LoginThrottleConfig, SvcConfig } from '../../src/config/config-types.ts';
import type { Store } from '../../src/store/create-store.ts';
import { createTestDatabase, testDialects, type TestDatabase, type TestDialect } from '../helpers/test-databases.ts';
import { testConfig } from '../helpers/test-config.ts';
import { PASSWORD, uniqueEmail } from './auth-fixtures.ts';

const REDIS_URL = process.env.TEST_REDIS_URL;
const WRONG = 'not the password';

interface Answer {
  status: number;
  body: string;
  code: string | undefined;
  retryAfter: string | undefined;
}

interface Node {
  app: FastifyInstance;
  store: Store;
  base: string;
  close(): Promise<void>;
}

/** Windows far longer than any test, so none ends midway on a slow machine. */
function configFor(database: TestDatabase, loginThrottle: Partial<LoginThrottleConfig>, redis?: string): SvcConfig {
  return testConfig(database.url, {
    auth: {
      basePath: '/auth',
      requireEmailVerification: false,
      defaultRole: 'user',
      social: {},
      email: { from: 'svc <no-reply@localhost>' },
      loginThrottle: {
        enabled: true,
        maxFailuresPerAccount: 5,
        maxFailuresPerAddress: 1000,
        windowMs: 600_000,
        ...loginThrottle,
      },
    },
    ...(redis ? { redis: { url: redis } } : {}),
  });
}

async function startNode(config: SvcConfig, options: { store?: Store; redisKeyPrefix?: string } = {}): Promise<Node> {
  const { app, ctx } = await buildApp({ config, startWorkers: false, ...options });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  assert.ok(address && typeof address === 'object');
  return { app, store: ctx.store, base: `http://127.0.0.1:${address.port}`, close: () => app.close() };
}

async function post(base: string, path: string, body: Record<string, unknown>): Promise<Answer> {
  const response = await request(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  let code: string | undefined;
  try {
    const json = JSON.parse(text) as { code?: string; errors?: Array<{ code: string }> };
    code = json.errors?.[0]?.code ?? json.code;
  } catch {
    code = undefined;
  }
  const retryAfter = response.headers['retry-after'];
  return {
    status: response.statusCode,
    body: text,
    code,
    retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
  };
}

const token = (base: string, email: string, password: string): Promise<Answer> =>
  post(base, '/token', { email, password });
const signIn = (base: string, email: string, password: string): Promise<Answer> =>
  post(base, '/auth/sign-in/email', { email, password });

async function signUp(base: string, email: string): Promise<void> {
  const answer = await post(base, '/auth/sign-up/email', { name: 'Throttled', email, password: PASSWORD });
  assert.equal(answer.status, 200, answer.body);
}

function statuses(answers: Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
  return counts;
}

function assertThrottled(answer: Answer): void {
  assert.equal(answer.status, 429, answer.body);
  assert.equal(answer.code, 'RATE_LIMITED');
  assert.match(answer.retryAfter ?? '', /^[1-9]\d*$/);
}

/** Makes `count` attempts at once. */
function concurrently(count: number, attempt: (i: number) => Promise<Answer>): Promise<Answer[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => attempt(i)));
}

for (const dialect of testDialects()) {
  describe(`login throttle per account on ${dialect}`, { timeout: 300_000 }, () => {
    let database: TestDatabase;
    let node: Node;
    before(async () => {
      database = await createTestDatabase(dialect);
      node = await startNode(configFor(database, { maxFailuresPerAccount: 5 }));
    });
    after(async () => {
      await node.close();
      await database.drop();
    });

    it('lets exactly 5 of 30 concurrent wrong /token attempts be checked (401) and answers the rest 429 RATE_LIMITED', async () => {
      const email = uniqueEmail('token-burst');
      await signUp(node.base, email);
      const answers = await concurrently(30, () => token(node.base, email, WRONG));
      assert.deepEqual(statuses(answers), { 401: 5, 429: 25 });
      for (const answer of answers.filter((a) => a.status === 401)) assert.equal(answer.code, 'INVALID_CREDENTIALS');
      for (const answer of answers.filter((a) => a.status === 429)) assertThrottled(answer);
    });

    it('lets exactly 5 of 30 concurrent wrong sign-ins be checked (401) and answers the rest 429 RATE_LIMITED', async () => {
      const email = uniqueEmail('signin-burst');
      await signUp(node.base, email);
      const answers = await concurrently(30, () => signIn(node.base, email, WRONG));
      assert.deepEqual(statuses(answers), { 401: 5, 429: 25 });
      for (const answer of answers.filter((a) => a.status === 429)) assertThrottled(answer);
    });

    it('gives identical 401 INVALID_CREDENTIALS for an unknown email and a wrong password before throttling', async () => {
      const email = uniqueEmail('known');
      await signUp(node.base, email);
      const wrongPassword = await token(node.base, email, WRONG);
      const unknownEmail = await token(node.base, uniqueEmail('unknown'), WRONG);
      assert.equal(wrongPassword.status, 401);
      assert.equal(wrongPassword.code, 'INVALID_CREDENTIALS');
      assert.equal(unknownEmail.status, wrongPassword.status);
      assert.equal(unknownEmail.body, wrongPassword.body);
    });

    it('answers the same 429 for a throttled account whether it exists and whatever the password, right one included', async () => {
      const known = uniqueEmail('known-locked');
      const unknown = uniqueEmail('unknown-locked');
      await signUp(node.base, known);
      for (const email of [known, unknown]) {
        const answers = await concurrently(5, () => token(node.base, email, WRONG));
        assert.deepEqual(statuses(answers), { 401: 5 });
      }
      const answers = [
        await token(node.base, known, PASSWORD),
        await token(node.base, known, WRONG),
        await token(node.base, unknown, PASSWORD),
        await token(node.base, unknown, WRONG),
        await signIn(node.base, known, PASSWORD),
      ];
      for (const answer of answers) assertThrottled(answer);
      assert.equal(new Set(answers.slice(0, 4).map((a) => a.body)).size, 1, 'the four /token answers differ');
    });

    it('counts /token and sign-in failures together, and the email whatever its case and spaces', async () => {
      const email = uniqueEmail('shared');
      await signUp(node.base, email);
      assert.equal((await token(node.base, email, WRONG)).status, 401);
      assert.equal((await token(node.base, ` ${email.toUpperCase()} `, WRONG)).status, 401);
      assert.equal((await signIn(node.base, email.toUpperCase(), WRONG)).status, 401);
      assert.equal((await signIn(node.base, email, WRONG)).status, 401);
      assert.equal((await token(node.base, email, WRONG)).status, 401);
      assertThrottled(await signIn(node.base, email, PASSWORD));
      assertThrottled(await token(node.base, email, PASSWORD));
    });

    it("resets the account's failures on a successful sign-in or /token", async () => {
      const email = uniqueEmail('reset');
      await signUp(node.base, email);
      for (let i = 0; i < 4; i++) assert.equal((await token(node.base, email, WRONG)).status, 401);
      assert.equal((await token(node.base, email, PASSWORD)).status, 201);
      for (let i = 0; i < 4; i++) assert.equal((await signIn(node.base, email, WRONG)).status, 401);
      assert.equal((await signIn(node.base, email, PASSWORD)).status, 200);
      const answers = await concurrently(8, () => token(node.base, email, WRONG));
      assert.deepEqual(statuses(answers), { 401: 5, 429: 3 });
    });

    it('does not count requests refused before any password check (bad body)', async () => {
      const email = uniqueEmail('bad-body');
      await signUp(node.base, email);
      for (let i = 0; i < 8; i++) {
        assert.equal((await post(node.base, '/token', { email, password: WRONG, expiresIn: -1 })).status, 400);
        assert.equal(
          (await post(node.base, '/auth/sign-in/email', { email, password: WRONG, rememberMe: 'maybe' })).status,
          400,
        );
      }
      assert.equal((await token(node.base, email, PASSWORD)).status, 201);
    });
  });

  describe(`login throttle per client address on ${dialect}`, { timeout: 120_000 }, () => {
    let database: TestDatabase;
    let node: Node;
    before(async () => {
      database = await createTestDatabase(dialect);
      node = await startNode(configFor(database, { maxFailuresPerAccount: 1000, maxFailuresPerAddress: 6 }));
    });
    after(async () => {
      await node.close();
      await database.drop();
    });

    it('limits failures from one address across accounts; successes do not count against it', async () => {
      const user = uniqueEmail('address-user');
      await signUp(node.base, user);
      for (let i = 0; i < 3; i++) assert.equal((await token(node.base, uniqueEmail('spray'), WRONG)).status, 401);
      // Many successes in between leave room for exactly the 3 failures that remain.
      for (let i = 0; i < 8; i++) assert.equal((await token(node.base, user, PASSWORD)).status, 201);
      const answers = await concurrently(12, () => signIn(node.base, uniqueEmail('spray'), WRONG));
      assert.deepEqual(statuses(answers), { 401: 3, 429: 9 });
      for (const answer of answers.filter((a) => a.status === 429)) assertThrottled(answer);
      assertThrottled(await token(node.base, user, PASSWORD));
    });
  });
}

describe('login throttle switched off', { timeout: 120_000 }, () => {
  it('checks every attempt when auth.loginThrottle.enabled is false', async () => {
    const database = await createTestDatabase('sqlite');
    const node = await startNode(
      configFor(database, { enabled: false, maxFailuresPerAccount: 1, maxFailuresPerAddress: 1 }),
    );
    try {
      const email = uniqueEmail('off');
      await signUp(node.base, email);
      const answers = await concurrently(4, () => token(node.base, email, WRONG));
      assert.deepEqual(statuses(answers), { 401: 4 });
      assert.equal((await token(node.base, email, PASSWORD)).status, 201);
    } finally {
      await node.close();
      await database.drop();
    }
  });
});

describe('login throttle shared through Redis', {
  skip: REDIS_URL ? false : 'TEST_REDIS_URL is not set',
  timeout: 300_000,
}, () => {
  const startPair = async (dialect: TestDialect): Promise<{ nodes: [Node, Node]; close(): Promise<void> }> => {
    const database = await createTestDatabase(dialect);
    const config = configFor(database, { maxFailuresPerAccount: 5, maxFailuresPerAddress: 1000 }, REDIS_URL);
    // A prefix of its own, so parallel test files and earlier runs on this Redis count nothing here.
    const redisKeyPrefix = `svc-test-${randomBytes(6).toString('hex')}:`;
    const first = await startNode(config, { redisKeyPrefix });
    const second = await startNode(config, { redisKeyPrefix, store: first.store });
    return {
      nodes: [first, second],
      async close() {
        await second.close();
        await first.close();
        await database.drop();
      },
    };
  };

  for (const dialect of testDialects()) {
    it(`lets exactly 5 of 30 concurrent wrong attempts through across two nodes, and a success on one resets both (${dialect})`, async () => {
      const pair = await startPair(dialect);
      try {
        const [a, b] = pair.nodes;
        const email = uniqueEmail('cluster');
        await signUp(a.base, email);
        const answers = await concurrently(30, (i) =>
          i % 2 ? token(a.base, email, WRONG) : signIn(b.base, email, WRONG),
        );
        assert.deepEqual(statuses(answers), { 401: 5, 429: 25 });
        assertThrottled(await token(b.base, email, PASSWORD));

        const other = uniqueEmail('cluster-reset');
        await signUp(b.base, other);
        for (let i = 0; i < 4; i++) assert.equal((await token(i % 2 ? a.base : b.base, other, WRONG)).status, 401);
        assert.equal((await signIn(b.base, other, PASSWORD)).status, 200);
        const after = await concurrently(7, () => token(a.base, other, WRONG));
        assert.deepEqual(statuses(after), { 401: 5, 429: 2 });
      } finally {
        await pair.close();
      }
    });
  }
});
