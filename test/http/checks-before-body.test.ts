// Authentication and authorization come before the body: a request without valid credentials is 401 and
// an admin-token write on /v1 is 403 whatever its body (malformed, mistyped, too large), and the body of
// such a request is never parsed, nor even waited for.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { InjectOptions } from 'fastify';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { recordJsonParses } from '../helpers/json-parse-spy.ts';

/** A string that appears only in the bodies sent here, to find them among everything JSON.parse saw. */
const MARKER = 'body-marker-5c1e';
const TOO_LARGE = `{"title":"${MARKER}","body":"${'x'.repeat(1_100_000)}"}`;

interface BodyCase {
  name: string;
  payload: string;
  contentType: string;
}

const BODIES: BodyCase[] = [
  {
    name: 'a valid body',
    payload: `{"title":"${MARKER}","name":"${MARKER}","primaryRole":"user"}`,
    contentType: 'application/json',
  },
  { name: 'malformed JSON', payload: `{"title":"${MARKER}"`, contentType: 'application/json' },
  { name: 'a wrong content type', payload: `title=${MARKER}`, contentType: 'text/plain' },
  {
    name: 'a JSON:API type with a parameter',
    payload: `{"title":"${MARKER}"}`,
    contentType: 'application/vnd.api+json; ext=bulk',
  },
  { name: 'a body over the limit', payload: TOO_LARGE, contentType: 'application/json' },
];

/** The status and code a request gets, and whether JSON.parse ever saw its body. */
async function answerAndParses(
  t: TestApp,
  options: InjectOptions & { auth?: string },
): Promise<{ status: number; code: string | undefined; parsedBody: boolean }> {
  let response: Awaited<ReturnType<TestApp['request']>> | undefined;
  const parsed = await recordJsonParses(async () => {
    response = await t.request(options);
  });
  const answered = response!;
  const code =
    answered.statusCode >= 400 ? (answered.json() as { errors: { code: string }[] }).errors[0]?.code : undefined;
  return { status: answered.statusCode, code, parsedBody: parsed.some((text) => text.includes(MARKER)) };
}

/** Sends only the head of a request announcing a large body and returns the status line of the answer. */
async function statusWithoutBody(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer without the body; got ${JSON.stringify(received.slice(0, 200))}`));
    }, 5_000);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.includes('\r\n')) {
        clearTimeout(timer);
        socket.destroy();
        resolve(received.slice(0, received.indexOf('\r\n')));
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.write(head);
  });
}

for (const dialect of testDialects()) {
  describe(`checks made before the body is read on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    let user: string;
    let postId: string;
    before(async () => {
      t = await startTestApp(dialect);
      editor = await t.as('editor');
      user = await t.as('user');
      const created = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title: 'Target' } });
      postId = (created.json() as { data: { id: string } }).data.id;
    });
    after(() => t.close());

    it('answers 401 without credentials before parsing any body, on /v1 and /admin (413 comes after credentials)', async () => {
      const targets: [InjectOptions['method'], string][] = [
        ['POST', '/v1/posts'],
        ['PUT', `/v1/posts/${postId}`],
        ['PATCH', `/v1/posts/${postId}`],
        ['POST', `/v1/posts/${postId}`],
        ['POST', '/admin/webhooks'],
        ['PATCH', '/admin/users/someone'],
        ['PATCH', '/admin/keys/some-key'],
      ];
      for (const [method, url] of targets) {
        for (const body of BODIES) {
          for (const auth of [undefined, 'Bearer svc_not_a_real_key_at_all_0000000000000000000', 'Basic abc']) {
            const outcome = await answerAndParses(t, {
              method,
              url,
              ...(auth ? { auth } : {}),
              payload: body.payload,
              headers: { 'content-type': body.contentType },
            });
            assert.equal(
              outcome.status,
              401,
              `${method} ${url} with ${body.name}, auth ${String(auth)}: ${outcome.code}`,
            );
            assert.equal(outcome.parsedBody, false, `${method} ${url} with ${body.name}: the body was parsed`);
          }
        }
      }
    });

    it('answers 403 ADMIN_TOKEN_NOT_ALLOWED to an admin-token write on /v1 whatever its body, without parsing it', async () => {
      const targets: [InjectOptions['method'], string][] = [
        ['POST', '/v1/posts'],
        ['PUT', `/v1/posts/${postId}`],
        ['PATCH', `/v1/posts/${postId}`],
      ];
      for (const [method, url] of targets) {
        for (const body of BODIES) {
          const outcome = await answerAndParses(t, {
            method,
            url,
            auth: t.admin,
            payload: body.payload,
            headers: { 'content-type': body.contentType },
          });
          assert.deepEqual(
            [outcome.status, outcome.code],
            [403, 'ADMIN_TOKEN_NOT_ALLOWED'],
            `${method} ${url} with ${body.name}`,
          );
          assert.equal(outcome.parsedBody, false, `${method} ${url} with ${body.name}: the body was parsed`);
        }
      }
    });

    it('refuses a write the role may not make (403), an unknown resource (404) and a wrong method (405) before the body', async () => {
      const cases: [InjectOptions['method'], string, string, number, string][] = [
        ['POST', '/v1/categories', user, 403, 'FORBIDDEN'],
        ['POST', '/v1/missing', editor, 404, 'RESOURCE_NOT_FOUND'],
        ['POST', `/v1/posts/${postId}`, editor, 405, 'METHOD_NOT_ALLOWED'],
        ['PUT', '/v1/posts', editor, 405, 'METHOD_NOT_ALLOWED'],
        ['POST', '/v1/posts/stream', editor, 405, 'METHOD_NOT_ALLOWED'],
        ['POST', '/v1/', editor, 400, 'NO_RESOURCE_NAME'],
      ];
      for (const [method, url, auth, status, code] of cases) {
        for (const body of BODIES) {
          const outcome = await answerAndParses(t, {
            method,
            url,
            auth,
            payload: body.payload,
            headers: { 'content-type': body.contentType },
          });
          assert.deepEqual([outcome.status, outcome.code], [status, code], `${method} ${url} with ${body.name}`);
          assert.equal(outcome.parsedBody, false, `${method} ${url} with ${body.name}: the body was parsed`);
        }
      }
    });

    it('decides read access before looking at the query: a forbidden list is 403 whatever its query holds', async () => {
      for (const url of ['/v1/comments?title=%00', '/v1/comments?_limit=x', '/v1/comments/stream?events=%00']) {
        const response = await t.request({ method: 'GET', url, auth: user });
        assert.equal(response.statusCode, 403, `${url}: ${response.body}`);
        assert.equal((response.json() as { errors: { code: string }[] }).errors[0]!.code, 'FORBIDDEN');
      }
    });

    it('still reads the body of an authorized write: 400, 415 and 413 as before', async () => {
      // The "valid" body names fields posts do not have (it serves the admin routes too): parsed, then refused.
      const expected: [number, boolean][] = [
        [400, true],
        [400, true],
        [415, false],
        [415, false],
        [413, false],
      ];
      for (const [i, body] of BODIES.entries()) {
        const outcome = await answerAndParses(t, {
          method: 'POST',
          url: '/v1/posts',
          auth: editor,
          payload: body.payload,
          headers: { 'content-type': body.contentType },
        });
        assert.deepEqual([outcome.status, outcome.parsedBody], expected[i], `${body.name}: ${outcome.code}`);
      }
    });

    it('answers 401 and 403 over a real socket without waiting for an announced body', async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as AddressInfo;
      const head = (method: string, url: string, authorization?: string) =>
        `${method} ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n${authorization ? `Authorization: ${authorization}\r\n` : ''}\r\n`;
      assert.match(await statusWithoutBody(port, head('POST', '/v1/posts')), / 401 /);
      assert.match(await statusWithoutBody(port, head('POST', '/admin/webhooks')), / 401 /);
      assert.match(await statusWithoutBody(port, head('PATCH', `/v1/posts/${postId}`, t.admin)), / 403 /);
      // An authorized caller announcing more than the limit is refused at once too, now by size.
      assert.match(await statusWithoutBody(port, head('POST', '/v1/posts', editor)), / 413 /);
    });
  });
}
