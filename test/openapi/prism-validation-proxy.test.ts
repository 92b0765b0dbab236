// A second opinion on /openapi.json from a tool no one here wrote: Stoplight Prism's validation proxy
// (`prism proxy`) sits between this test and a listening svc and checks every request and every answer
// against the document the service serves. The workload calls every operation but the few named in
// NOT_DRIVEN, with good requests (which must raise no violation at all) and bad ones (whose request
// violations are the point, but whose answers must still match the document). Prism reports what it
// found in each answer's `sl-violations` header. One dialect: the document does not depend on it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { TEST_PASSWORD } from '../helpers/test-user.ts';

const PRISM = join(import.meta.dirname, '../../node_modules/@stoplight/prism-cli/dist/index.js');
const PRISM_START_TIMEOUT_MS = 45_000;
const MISSING = '00000000-0000-7000-8000-000000000000';

/**
 * Operations the workload does not call through Prism, and why: Prism buffers an answer before it
 * validates it, and a stream never ends; the others need a token that only arrives by email.
 */
const NOT_DRIVEN = new Set([
  'GET /v1/categories/stream',
  'GET /v1/posts/stream',
  'GET /v1/comments/stream',
  'GET /v1/stream',
  'GET /auth/verify-email',
  'GET /auth/reset-password/{token}',
  'POST /auth/reset-password',
  'GET /auth/delete-user/callback',
]);

interface Violation {
  location: string[];
  severity: string;
  code?: string | number;
  message: string;
}

/**
 * Violations Prism reports that are Prism's limits, not the document's mistakes (each checked by hand):
 * - Prism matches a body's media type on type and subtype only, dropping the name before a `+json`
 *   suffix (`application/vnd.api+json` is `application/json` to it), so where an operation declares
 *   both it checks the body against the first one listed whatever the Content-Type says. Such bodies
 *   are checked against the right schema by the suite's own conformance tests (response-conformance.ts).
 * - A bad request's own violations are the point of sending it; only its answer must conform.
 */
function isKnownPrismLimit(violation: Violation, scenario: Scenario, sent: MediaTypes): boolean {
  if (scenario.bad && violation.location[0] === 'request') return true;
  const side = violation.location[0] === 'request' ? sent.request : sent.response;
  if (violation.location[1] === 'body' && side.declared.length > 1 && side.actual !== undefined) {
    const first = side.declared.find((type) => suffixless(type) === suffixless(side.actual!));
    if (first !== undefined && first !== side.actual) return true;
  }
  return false;
}

/** How Prism sees a media type: `application/vnd.api+json; ext=x` → `application/json`. */
function suffixless(mediaType: string): string {
  const [type = '', subtype = ''] = mediaType.split(';')[0]!.trim().toLowerCase().split('/');
  return `${type}/${subtype.slice(subtype.lastIndexOf('+') + 1)}`;
}

interface MediaTypes {
  request: { declared: string[]; actual: string | undefined };
  response: { declared: string[]; actual: string | undefined };
}

interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      {
        requestBody?: { content?: Record<string, unknown> };
        responses?: Record<string, { content?: Record<string, unknown> }>;
      }
    >
  >;
}

interface Scenario {
  /** `METHOD /template` of the operation, as in the document. */
  operation: string;
  path: string;
  auth?: string;
  body?: unknown;
  /** A raw body (bad JSON, a form). */
  raw?: string;
  headers?: Record<string, string>;
  status: number;
  /** A request the document rejects on purpose: only the answer has to conform. */
  bad?: boolean;
}

/** A free port on 127.0.0.1 for Prism (it takes no port 0). */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

describe("Prism's validation proxy finds nothing /openapi.json does not describe", () => {
  let t: TestApp;
  let prism: ChildProcess;
  let prismUrl: string;
  let receiver: Server;
  let receiverUrl: string;
  let dir: string;
  const prismOutput: string[] = [];

  before(async () => {
    t = await startTestApp('sqlite', { webhooks: { timeoutMs: 5000, allowPrivateTargets: true, pollIntervalMs: 50 } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    receiver = createServer((_request, response) => response.writeHead(200).end('ok'));
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;

    dir = mkdtempSync(join(tmpdir(), 'svc-prism-'));
    const documentFile = join(dir, 'openapi.json');
    writeFileSync(documentFile, await (await fetch(`http://127.0.0.1:${port}/openapi.json`)).text());
    const prismPort = await freePort();
    prismUrl = `http://127.0.0.1:${prismPort}`;
    prism = spawn(
      process.execPath,
      [PRISM, 'proxy', documentFile, `http://127.0.0.1:${port}`, '--host', '127.0.0.1', '--port', String(prismPort)],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_V8_COVERAGE: '' } },
    );
    prism.stdout!.on('data', (chunk: Buffer) => prismOutput.push(chunk.toString()));
    prism.stderr!.on('data', (chunk: Buffer) => prismOutput.push(chunk.toString()));
    const deadline = Date.now() + PRISM_START_TIMEOUT_MS;
    while (!/Prism is listening/.test(prismOutput.join(''))) {
      if (prism.exitCode !== null || Date.now() > deadline)
        throw new Error(`Prism did not start within ${PRISM_START_TIMEOUT_MS} ms:\n${prismOutput.join('')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  after(async () => {
    if (prism && prism.exitCode === null) {
      const exited = once(prism, 'exit');
      prism.kill('SIGTERM');
      await exited;
    }
    receiver?.close();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('drives every operation, good and bad requests, and Prism reports no violation of the document', {
    timeout: 120_000,
  }, async () => {
    const problems: string[] = [];
    const documented = JSON.parse(readFileSync(join(dir, 'openapi.json'), 'utf8')) as OpenApiDocument;
    const driven = new Set<string>();

    async function send(scenario: Scenario): Promise<Record<string, unknown> | undefined> {
      const headers: Record<string, string> = { ...scenario.headers };
      if (scenario.auth) headers.authorization = scenario.auth;
      let body: string | undefined;
      if (scenario.raw !== undefined) body = scenario.raw;
      else if (scenario.body !== undefined) {
        body = JSON.stringify(scenario.body);
        headers['content-type'] ??= 'application/json';
      }
      const method = scenario.operation.split(' ')[0]!;
      const response = await fetch(`${prismUrl}${scenario.path}`, { method, headers, body, redirect: 'manual' });
      const text = await response.text();
      driven.add(scenario.operation);
      const label = `${scenario.operation} (${scenario.path}${scenario.bad ? ', bad on purpose' : ''})`;
      if (response.status !== scenario.status)
        problems.push(`${label}: answered ${response.status}, expected ${scenario.status}: ${text.slice(0, 300)}`);
      const reported = response.headers.get('sl-violations');
      if (reported) {
        const [verb, template] = scenario.operation.split(' ') as [string, string];
        const operation = documented.paths[template]?.[verb.toLowerCase()];
        const mediaTypes: MediaTypes = {
          request: {
            declared: Object.keys(operation?.requestBody?.content ?? {}),
            actual: headers['content-type']?.split(';')[0]?.trim(),
          },
          response: {
            declared: Object.keys(operation?.responses?.[String(response.status)]?.content ?? {}),
            actual: response.headers.get('content-type')?.split(';')[0]?.trim(),
          },
        };
        for (const violation of JSON.parse(reported) as Violation[]) {
          if (!isKnownPrismLimit(violation, scenario, mediaTypes))
            problems.push(`${label} → ${response.status}: ${violation.location.join('.')}: ${violation.message}`);
        }
      }
      if (!response.headers.get('content-type')?.includes('json') || text === '') return undefined;
      return JSON.parse(text) as Record<string, unknown>;
    }
    const idOf = (document: Record<string, unknown> | undefined): string =>
      ((document?.data ?? {}) as { id?: string }).id ?? MISSING;

    const editor = await t.as('editor');
    const user = await t.as('user');
    const admin = t.admin;
    const jsonApi = { 'content-type': 'application/vnd.api+json' };

    // Records of each resource: create, read, list, change, delete, and the usual mistakes.
    const category = idOf(
      await send({
        operation: 'POST /v1/categories',
        path: '/v1/categories',
        auth: editor,
        body: { name: 'Docs' },
        status: 201,
      }),
    );
    await send({
      operation: 'POST /v1/categories',
      path: '/v1/categories?_upsert=name',
      auth: editor,
      body: { name: 'Docs', description: 'again' },
      status: 200,
    });
    const post = idOf(
      await send({
        operation: 'POST /v1/posts',
        path: '/v1/posts',
        auth: editor,
        headers: jsonApi,
        body: {
          data: {
            type: 'posts',
            attributes: { title: 'Hello', views: 3, tags: ['a'], published_at: '2026-01-02T03:04:05.000Z' },
            relationships: { category_id: { data: { type: 'categories', id: category } } },
          },
        },
        status: 201,
      }),
    );
    const comment = idOf(
      await send({
        operation: 'POST /v1/comments',
        path: '/v1/comments',
        auth: editor,
        body: { body: 'nice', post_id: post },
        status: 201,
      }),
    );
    const scenarios: Scenario[] = [
      { operation: 'GET /v1/posts', path: '/v1/posts', auth: editor, status: 200 },
      {
        operation: 'GET /v1/posts',
        path: '/v1/posts?sort=-views,title&page[size]=1&page[number]=1',
        auth: editor,
        status: 200,
      },
      {
        operation: 'GET /v1/posts',
        path: '/v1/posts?views__gte=1&fields=title,views&include=category_id',
        auth: editor,
        status: 200,
      },
      { operation: 'GET /v1/posts', path: '/v1/posts', auth: user, status: 200 },
      { operation: 'GET /v1/posts', path: '/v1/posts?_sort=nope', auth: editor, status: 400, bad: true },
      { operation: 'GET /v1/posts', path: '/v1/posts?_limit=0', auth: editor, status: 400, bad: true },
      { operation: 'GET /v1/posts', path: '/v1/posts', status: 401, bad: true },
      { operation: 'GET /v1/posts', path: '/v1/posts', auth: 'Bearer nope', status: 401, bad: true },
      {
        operation: 'GET /v1/posts',
        path: '/v1/posts',
        auth: editor,
        headers: { accept: 'text/csv; q=0, application/vnd.api+json; ext=x' },
        status: 406,
        bad: true,
      },
      {
        operation: 'GET /v1/posts/aggregate',
        path: '/v1/posts/aggregate?_group=status&_count',
        auth: editor,
        status: 200,
      },
      {
        operation: 'GET /v1/posts/aggregate',
        path: '/v1/posts/aggregate?_sum=nope',
        auth: editor,
        status: 400,
        bad: true,
      },
      { operation: 'GET /v1/posts/{id}', path: `/v1/posts/${post}`, auth: editor, status: 200 },
      {
        operation: 'GET /v1/posts/{id}',
        path: `/v1/posts/${post}?include=category_id&fields[posts]=title`,
        auth: editor,
        status: 200,
      },
      { operation: 'GET /v1/posts/{id}', path: `/v1/posts/${MISSING}`, auth: editor, status: 404 },
      {
        operation: 'GET /v1/posts/{id}',
        path: `/v1/posts/${post}`,
        auth: editor,
        headers: { 'content-type': 'application/vnd.api+json; ext=bulk' },
        status: 200,
      },
      { operation: 'PATCH /v1/posts/{id}', path: `/v1/posts/${post}`, auth: editor, body: { views: 4 }, status: 200 },
      {
        operation: 'PATCH /v1/posts/{id}',
        path: `/v1/posts/${post}`,
        auth: editor,
        body: { views: -1 },
        status: 400,
        bad: true,
      },
      {
        operation: 'PATCH /v1/posts/{id}',
        path: `/v1/posts/${post}`,
        auth: editor,
        body: { nope: 1 },
        status: 400,
        bad: true,
      },
      {
        operation: 'PATCH /v1/posts/{id}',
        path: `/v1/posts/${post}`,
        auth: editor,
        raw: '{"title":',
        headers: { 'content-type': 'application/json' },
        status: 400,
        bad: true,
      },
      {
        operation: 'PATCH /v1/posts/{id}',
        path: `/v1/posts/${post}`,
        auth: editor,
        raw: 'title=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        status: 415,
        bad: true,
      },
      {
        operation: 'PATCH /v1/posts/{id}',
        path: `/v1/posts/${post}`,
        auth: user,
        body: { title: 'mine?' },
        status: 404,
      },
      {
        operation: 'PATCH /v1/posts/{id}',
        path: `/v1/posts/${post}`,
        auth: editor,
        headers: { 'if-match': '"stale"' },
        body: { views: 5 },
        status: 412,
      },
      {
        operation: 'PUT /v1/posts/{id}',
        path: `/v1/posts/${post}`,
        auth: editor,
        body: { title: 'Hello again', category_id: category },
        status: 200,
      },
      {
        operation: 'PUT /v1/posts/{id}',
        path: `/v1/posts/${MISSING}`,
        auth: editor,
        body: { title: 'x' },
        status: 404,
      },
      {
        operation: 'POST /v1/posts',
        path: '/v1/posts',
        auth: editor,
        body: { body: 'no title' },
        status: 400,
        bad: true,
      },
      {
        operation: 'POST /v1/posts',
        path: '/v1/posts',
        auth: editor,
        body: { title: 'x', category_id: MISSING },
        status: 400,
      },
      {
        operation: 'POST /v1/posts',
        path: '/v1/posts',
        auth: user,
        body: { title: 'x', views: 2 },
        status: 400,
        bad: true,
      },
      { operation: 'POST /v1/categories', path: '/v1/categories', auth: editor, body: { name: 'Docs' }, status: 409 },
      { operation: 'POST /v1/categories', path: '/v1/categories', auth: user, body: { name: 'Mine' }, status: 403 },
      { operation: 'GET /v1/posts/schema', path: '/v1/posts/schema', auth: editor, status: 200 },
      { operation: 'GET /v1/posts/schema', path: '/v1/posts/schema', status: 401, bad: true },
      { operation: 'GET /v1/categories', path: '/v1/categories?sort=name', auth: user, status: 200 },
      { operation: 'GET /v1/categories/aggregate', path: '/v1/categories/aggregate?_count', auth: editor, status: 200 },
      { operation: 'GET /v1/categories/{id}', path: `/v1/categories/${category}`, auth: user, status: 200 },
      {
        operation: 'PATCH /v1/categories/{id}',
        path: `/v1/categories/${category}`,
        auth: editor,
        body: { description: 'all of it' },
        status: 200,
      },
      {
        operation: 'PUT /v1/categories/{id}',
        path: `/v1/categories/${category}`,
        auth: editor,
        body: { name: 'Docs' },
        status: 200,
      },
      { operation: 'DELETE /v1/categories/{id}', path: `/v1/categories/${category}`, auth: editor, status: 409 },
      { operation: 'GET /v1/categories/schema', path: '/v1/categories/schema', auth: user, status: 200 },
      {
        operation: 'GET /v1/categories/{id}/posts',
        path: `/v1/categories/${category}/posts`,
        auth: editor,
        status: 200,
      },
      {
        operation: 'GET /v1/categories/{id}/posts',
        path: `/v1/categories/${MISSING}/posts`,
        auth: editor,
        status: 404,
      },
      { operation: 'GET /v1/posts/{id}/comments', path: `/v1/posts/${post}/comments`, auth: editor, status: 200 },
      { operation: 'GET /v1/comments', path: '/v1/comments', auth: editor, status: 200 },
      { operation: 'GET /v1/comments/aggregate', path: '/v1/comments/aggregate?_count', auth: editor, status: 200 },
      { operation: 'GET /v1/comments/{id}', path: `/v1/comments/${comment}`, auth: editor, status: 200 },
      {
        operation: 'PATCH /v1/comments/{id}',
        path: `/v1/comments/${comment}`,
        auth: editor,
        body: { body: 'nicer' },
        status: 200,
      },
      {
        operation: 'PUT /v1/comments/{id}',
        path: `/v1/comments/${comment}`,
        auth: editor,
        body: { body: 'nicest', post_id: post },
        status: 200,
      },
      { operation: 'GET /v1/comments/schema', path: '/v1/comments/schema', auth: editor, status: 200 },
      { operation: 'DELETE /v1/comments/{id}', path: `/v1/comments/${comment}`, auth: editor, status: 204 },
      { operation: 'DELETE /v1/comments/{id}', path: `/v1/comments/${comment}`, auth: editor, status: 404 },
      {
        operation: 'POST /v1/operations',
        path: '/v1/operations',
        auth: editor,
        headers: {
          'content-type': 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"',
          accept: 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"',
        },
        raw: JSON.stringify({
          'atomic:operations': [{ op: 'add', data: { type: 'posts', attributes: { title: 'batched' } } }],
        }),
        status: 200,
      },
      { operation: 'GET /me', path: '/me', auth: user, status: 200 },
      { operation: 'GET /me', path: '/me', status: 401, bad: true },
      { operation: 'GET /openapi.json', path: '/openapi.json', status: 200 },
      { operation: 'GET /openapi.yaml', path: '/openapi.yaml', status: 200 },
      { operation: 'GET /healthz', path: '/healthz', status: 200 },
      { operation: 'GET /readyz', path: '/readyz', status: 200 },
      { operation: 'GET /metrics', path: '/metrics', auth: admin, status: 200 },
      { operation: 'GET /metrics', path: '/metrics', status: 401, bad: true },
      { operation: 'GET /admin/resources', path: '/admin/resources', auth: admin, status: 200 },
      { operation: 'GET /admin/resources', path: '/admin/resources', auth: editor, status: 403 },
      { operation: 'GET /admin/resources', path: '/admin/resources', status: 401, bad: true },
      { operation: 'GET /admin/resources/{name}', path: '/admin/resources/posts', auth: admin, status: 200 },
      { operation: 'GET /admin/resources/{name}', path: '/admin/resources/nothing', auth: admin, status: 404 },
      {
        operation: 'GET /admin/resources/{name}/deleted',
        path: '/admin/resources/posts/deleted',
        auth: admin,
        status: 200,
      },
      { operation: 'GET /admin/roles', path: '/admin/roles', auth: admin, status: 200 },
      { operation: 'POST /admin/reload', path: '/admin/reload', auth: admin, status: 409 },
      { operation: 'GET /admin/users', path: '/admin/users', auth: admin, status: 200 },
      {
        operation: 'POST /admin/users',
        path: '/admin/users',
        auth: admin,
        body: { email: 'prism-created@example.test', password: 'a password long enough', name: 'Prism' },
        status: 201,
      },
      {
        operation: 'POST /admin/users',
        path: '/admin/users',
        auth: admin,
        body: { email: 'prism-bad@example.test', invite: 'yes' },
        status: 400,
        bad: true,
      },
      { operation: 'GET /admin/users/{id}', path: '/admin/users/user-user', auth: admin, status: 200 },
      { operation: 'GET /admin/users/{id}', path: '/admin/users/nobody', auth: admin, status: 404 },
      {
        operation: 'PATCH /admin/users/{id}',
        path: '/admin/users/user-user',
        auth: admin,
        body: { allowedRoles: ['user'] },
        status: 200,
      },
      {
        operation: 'PATCH /admin/users/{id}',
        path: '/admin/users/user-user',
        auth: admin,
        body: { primaryRole: '' },
        status: 400,
        bad: true,
      },
      { operation: 'GET /admin/users', path: '/admin/users?search=user', auth: admin, status: 200 },
      {
        operation: 'GET /admin/users',
        path: `/admin/users?search=${'a'.repeat(101)}`,
        auth: admin,
        status: 400,
        bad: true,
      },
      {
        operation: 'POST /admin/users/{id}/password-reset',
        path: '/admin/users/user-user/password-reset',
        auth: admin,
        status: 202,
      },
      {
        operation: 'POST /admin/users/{id}/password-reset',
        path: '/admin/users/nobody/password-reset',
        auth: admin,
        status: 404,
      },
      { operation: 'GET /admin/keys', path: '/admin/keys', auth: admin, status: 200 },
      { operation: 'GET /admin/keys', path: '/admin/keys?includeConsole=true', auth: admin, status: 200 },
      {
        operation: 'GET /admin/keys',
        path: '/admin/keys?includeConsole=yes',
        auth: admin,
        status: 400,
        bad: true,
      },
      {
        operation: 'GET /v1/posts/{id}/_history',
        path: `/v1/posts/${post}/_history`,
        auth: editor,
        status: 200,
      },
      {
        operation: 'GET /v1/posts/{id}/_history',
        path: `/v1/posts/${post}/_history?_limit=1000`,
        auth: editor,
        status: 400,
        bad: true,
      },
      {
        operation: 'GET /v1/posts/{id}/_history',
        path: `/v1/posts/${MISSING}/_history`,
        auth: editor,
        status: 404,
      },
      {
        operation: 'GET /v1/categories/{id}/_history',
        path: `/v1/categories/${category}/_history?page[limit]=5`,
        auth: user,
        status: 200,
      },
      {
        operation: 'GET /v1/comments/{id}/_history',
        path: `/v1/comments/${comment}/_history`,
        auth: editor,
        // Deleted (hard) earlier in this list: gone for its history too.
        status: 404,
      },
      { operation: 'GET /admin/keys/{id}', path: `/admin/keys/${MISSING}`, auth: admin, status: 404 },
      { operation: 'GET /admin/webhooks', path: '/admin/webhooks', auth: admin, status: 200 },
      { operation: 'GET /admin/webhooks/{id}', path: `/admin/webhooks/${MISSING}`, auth: admin, status: 404 },
      {
        operation: 'POST /admin/webhooks',
        path: '/admin/webhooks',
        auth: admin,
        body: { name: '' },
        status: 400,
        bad: true,
      },
      { operation: 'GET /auth/methods', path: '/auth/methods', status: 200 },
      {
        operation: 'POST /auth/sign-in/email',
        path: '/auth/sign-in/email',
        body: { email: 'nobody@example.test', password: 'wrong password' },
        status: 401,
      },
      {
        operation: 'POST /auth/request-password-reset',
        path: '/auth/request-password-reset',
        body: { email: 'nobody@example.test' },
        status: 200,
      },
      {
        operation: 'POST /token',
        path: '/token',
        body: { email: 'nobody@example.test', password: 'wrong password' },
        status: 401,
      },
      { operation: 'POST /token', path: '/token', body: { email: 3 }, status: 400, bad: true },
    ];
    for (const scenario of scenarios) await send(scenario);

    // Keys: one issued at /token, read, changed and deleted by the admin; a caller's own key revoked.
    const email = `prism-${Date.now()}@example.test`;
    await send({
      operation: 'POST /auth/sign-up/email',
      path: '/auth/sign-up/email',
      body: { name: 'Prism', email, password: TEST_PASSWORD },
      status: 200,
    });
    const session = (await send({
      operation: 'POST /auth/sign-in/email',
      path: '/auth/sign-in/email',
      body: { email, password: TEST_PASSWORD },
      status: 200,
    })) as { token: string };
    const sessionAuth = `Bearer ${session.token}`;
    await send({ operation: 'GET /auth/get-session', path: '/auth/get-session', auth: sessionAuth, status: 200 });
    await send({ operation: 'GET /auth/list-sessions', path: '/auth/list-sessions', auth: sessionAuth, status: 200 });
    await send({
      operation: 'POST /auth/send-verification-email',
      path: '/auth/send-verification-email',
      body: { email },
      status: 200,
    });
    await send({
      operation: 'POST /auth/change-password',
      path: '/auth/change-password',
      auth: sessionAuth,
      body: { currentPassword: 'wrong password', newPassword: 'another long password' },
      status: 400,
    });
    await send({
      operation: 'POST /auth/change-email',
      path: '/auth/change-email',
      auth: sessionAuth,
      body: { newEmail: `other-${email}` },
      status: 200,
    });
    await send({
      operation: 'POST /auth/revoke-other-sessions',
      path: '/auth/revoke-other-sessions',
      auth: sessionAuth,
      status: 200,
    });
    await send({
      operation: 'POST /auth/revoke-session',
      path: '/auth/revoke-session',
      auth: sessionAuth,
      body: { token: 'not-a-session' },
      status: 200,
    });
    const issued = (await send({
      operation: 'POST /token',
      path: '/token',
      body: { email, password: TEST_PASSWORD, name: 'prism', permissions: { posts: { read: ['title'] } } },
      status: 201,
    })) as { key: string; id: string };
    await send({ operation: 'GET /admin/keys/{id}', path: `/admin/keys/${issued.id}`, auth: admin, status: 200 });
    await send({
      operation: 'PATCH /admin/keys/{id}',
      path: `/admin/keys/${issued.id}`,
      auth: admin,
      body: { rateLimitMax: 10, rateLimitTimeWindow: 60000 },
      status: 200,
    });
    await send({
      operation: 'PATCH /admin/keys/{id}',
      path: `/admin/keys/${issued.id}`,
      auth: admin,
      body: { rateLimitMax: 0 },
      status: 400,
      bad: true,
    });
    const second = (await send({
      operation: 'POST /token',
      path: '/token',
      body: { email, password: TEST_PASSWORD },
      status: 201,
    })) as { key: string };
    await send({ operation: 'DELETE /me/key', path: '/me/key', auth: `Bearer ${second.key}`, status: 204 });
    await send({ operation: 'DELETE /admin/keys/{id}', path: `/admin/keys/${issued.id}`, auth: admin, status: 204 });
    await send({ operation: 'DELETE /admin/keys/{id}', path: `/admin/keys/${issued.id}`, auth: admin, status: 404 });
    await send({
      operation: 'POST /auth/revoke-sessions',
      path: '/auth/revoke-sessions',
      auth: sessionAuth,
      status: 200,
    });
    await send({ operation: 'POST /auth/sign-out', path: '/auth/sign-out', auth: sessionAuth, status: 200 });
    await send({ operation: 'POST /auth/sign-out', path: '/auth/sign-out', status: 200 });
    await send({
      operation: 'POST /auth/delete-user',
      path: '/auth/delete-user',
      auth: sessionAuth,
      body: {},
      status: 401,
    });

    // Webhooks: created, tested, a delivery read and retried, changed, deleted.
    const webhook = idOf(
      await send({
        operation: 'POST /admin/webhooks',
        path: '/admin/webhooks',
        auth: admin,
        body: { name: 'prism', url: receiverUrl, eventPattern: 'posts.*' },
        status: 201,
      }),
    );
    await send({ operation: 'GET /admin/webhooks/{id}', path: `/admin/webhooks/${webhook}`, auth: admin, status: 200 });
    await send({
      operation: 'POST /admin/webhooks/{id}/test',
      path: `/admin/webhooks/${webhook}/test`,
      auth: admin,
      status: 202,
    });
    let delivery: string | undefined;
    for (let attempt = 0; attempt < 100 && delivery === undefined; attempt += 1) {
      const listed = await send({
        operation: 'GET /admin/webhooks/{id}/deliveries',
        path: `/admin/webhooks/${webhook}/deliveries?status=success`,
        auth: admin,
        status: 200,
      });
      delivery = (listed?.data as { id: string }[] | undefined)?.[0]?.id;
      if (delivery === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(delivery, 'the test event was delivered');
    await send({
      operation: 'GET /admin/webhooks/{id}/deliveries',
      path: `/admin/webhooks/${webhook}/deliveries?status=lost`,
      auth: admin,
      status: 400,
      bad: true,
    });
    await send({
      operation: 'GET /admin/webhooks/{id}/deliveries/{deliveryId}',
      path: `/admin/webhooks/${webhook}/deliveries/${delivery}`,
      auth: admin,
      status: 200,
    });
    await send({
      operation: 'POST /admin/webhooks/{id}/deliveries/{deliveryId}/retry',
      path: `/admin/webhooks/${webhook}/deliveries/${delivery}/retry`,
      auth: admin,
      status: 202,
    });
    await send({
      operation: 'PATCH /admin/webhooks/{id}',
      path: `/admin/webhooks/${webhook}`,
      auth: admin,
      body: { enabled: false },
      status: 200,
    });
    await send({
      operation: 'POST /admin/webhooks/{id}/test',
      path: `/admin/webhooks/${webhook}/test`,
      auth: admin,
      status: 409,
    });
    await send({
      operation: 'DELETE /admin/webhooks/{id}',
      path: `/admin/webhooks/${webhook}`,
      auth: admin,
      status: 204,
    });

    // Last, what removes the records the rest used.
    await send({ operation: 'DELETE /v1/posts/{id}', path: `/v1/posts/${post}`, auth: editor, status: 204 });
    const restore = `/admin/resources/posts/deleted/${post}/restore`;
    const restoreOperation = 'POST /admin/resources/{name}/deleted/{id}/restore';
    await send({ operation: restoreOperation, path: restore, auth: admin, status: 200 });
    await send({ operation: restoreOperation, path: restore, auth: admin, status: 409 });
    await send({
      operation: restoreOperation,
      path: `/admin/resources/posts/deleted/${MISSING}/restore`,
      auth: admin,
      status: 404,
    });
    await send({ operation: 'DELETE /v1/posts/{id}', path: `/v1/posts/${post}`, auth: editor, status: 204 });
    await send({ operation: 'DELETE /v1/posts/{id}', path: `/v1/posts/${post}`, auth: editor, status: 404 });
    await send({ operation: 'DELETE /admin/users/{id}', path: '/admin/users/user-user', auth: admin, status: 204 });

    assert.deepEqual(problems, [], `${problems.length} problems:\n${problems.join('\n')}`);
    const operations = Object.entries(documented.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    assert.deepEqual(
      operations.filter((operation) => !driven.has(operation) && !NOT_DRIVEN.has(operation)),
      [],
      'every operation is driven through Prism',
    );
  });
});
