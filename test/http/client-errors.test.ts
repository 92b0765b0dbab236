// What Fastify would answer in its own format, over real sockets: requests Node's HTTP parser refuses
// (before a request exists) and requests that arrive while the app is closing get JSON:API errors from
// the catalogue, with a request id, and their connection is closed.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { createRequire } from 'node:module';
import Ajv from 'ajv';
import draft6 from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/errors/error-catalogue.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases.ts';
import { testConfig } from '../helpers/test-config.ts';

const require = createRequire(import.meta.url);
// The jsonapi-validator package ships the schema published by jsonapi.org (draft-06).
const jsonApiSchema = require('jsonapi-validator/lib/schema.json') as Record<string, unknown>;
const ajv = new Ajv.default({ allErrors: true, strict: false, validateFormats: false });
ajv.addMetaSchema(draft6);
const validateJsonApi = ajv.compile(jsonApiSchema);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface RawAnswer {
  statusLine: string;
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Writes `request` as is on a new connection and reads until the server closes it. */
function exchange(port: number, request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A server closing on unread bytes may reset the connection: what was read before still counts.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no complete answer: ${JSON.stringify(text)}`));
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
      const headers = new Map(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ statusLine, status: Number(statusLine.split(' ')[1]), headers, body: text.slice(split + 4) });
    });
  });
}

/** The answer is one catalogue error as a valid JSON:API document, and the connection was closed. */
function assertJsonApiError(answer: RawAnswer, code: ErrorCode, detail: RegExp, requestId: RegExp = UUID): void {
  const { status, title } = ERROR_CATALOGUE[code];
  assert.equal(answer.status, status, answer.statusLine);
  assert.equal(answer.headers.get('content-type')?.split(';')[0], 'application/vnd.api+json');
  assert.equal(answer.headers.get('connection'), 'close');
  assert.match(answer.headers.get('x-request-id') ?? '', requestId);
  assert.equal(Number(answer.headers.get('content-length')), Buffer.byteLength(answer.body));
  const document = JSON.parse(answer.body) as {
    errors: { status: string; code: string; title: string; detail: string }[];
  };
  assert.ok(validateJsonApi(document), JSON.stringify(validateJsonApi.errors));
  assert.equal(document.errors.length, 1);
  const [error] = document.errors;
  assert.deepEqual(
    { status: error?.status, code: error?.code, title: error?.title },
    { status: String(status), code, title },
  );
  assert.match(error?.detail ?? '', detail);
}

describe('HTTP parser errors over a real socket', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let port: number;

  before(async () => {
    database = await createTestDatabase('sqlite');
    ({ app } = await buildApp({ config: testConfig(database.url) }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
    port = address.port;
  });

  after(async () => {
    await app?.close();
    await database?.drop();
  });

  const SCENARIOS: { name: string; request: string; code: ErrorCode; detail: RegExp }[] = [
    {
      name: 'a malformed request line',
      request: 'BOGUS / HTTP/1.1\r\nHost: x\r\n\r\n',
      code: 'BAD_REQUEST',
      detail: /not valid HTTP\/1\.1: Invalid method/,
    },
    {
      name: 'an unknown HTTP version',
      request: 'GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n',
      code: 'BAD_REQUEST',
      detail: /Invalid HTTP version/,
    },
    {
      name: 'a space in a header name',
      request: 'GET /healthz HTTP/1.1\r\nHo st: x\r\n\r\n',
      code: 'BAD_REQUEST',
      detail: /Invalid header token/,
    },
    {
      // Node's limit is 16 KiB for the request line and headers together.
      name: 'headers over the limit',
      request: `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
      code: 'HEADERS_TOO_LARGE',
      detail: /larger than the server accepts/,
    },
    {
      name: 'a malformed chunk size',
      request:
        'POST /v1/posts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      code: 'BAD_REQUEST',
      detail: /Invalid character in chunk size/,
    },
    {
      name: 'both Content-Length and Transfer-Encoding',
      request:
        'POST /v1/posts HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
      code: 'BAD_REQUEST',
      detail: /not valid HTTP\/1\.1/,
    },
  ];
  for (const scenario of SCENARIOS) {
    it(`answers ${scenario.name} with ${ERROR_CATALOGUE[scenario.code].status} ${scenario.code} as JSON:API and closes`, async () => {
      assertJsonApiError(await exchange(port, scenario.request), scenario.code, scenario.detail);
    });
  }

  it('still answers a well-formed request after them', async () => {
    const answer = await exchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.equal(answer.status, 200, answer.body);
  });
});

describe('requests while the app is closing, over a real socket', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let port: number;
  let closed: Promise<void> | undefined;
  let release: () => void = () => {};
  let reachedGate: Promise<void>;

  before(async () => {
    database = await createTestDatabase('sqlite');
    ({ app } = await buildApp({ config: testConfig(database.url) }));
    // Holds the shutdown in its preClose phase (as draining workers would) so requests can arrive meanwhile.
    const gate = new Promise<void>((resolve) => (release = resolve));
    reachedGate = new Promise<void>((resolve) => {
      app.addHook('preClose', async () => {
        resolve();
        await gate;
      });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
    port = address.port;
  });

  after(async () => {
    release();
    await (closed ?? app?.close());
    await database?.drop();
  });

  it('answers 503 SERVICE_UNAVAILABLE as JSON:API with Retry-After and Connection: close', async () => {
    const before = await exchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.equal(before.status, 200, 'open before the shutdown');
    closed = app.close();
    await reachedGate;
    const anonymous = await exchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.equal(anonymous.headers.get('retry-after'), '1');
    assertJsonApiError(anonymous, 'SERVICE_UNAVAILABLE', /shutting down/);
    const named = await exchange(port, 'GET /v1/posts HTTP/1.1\r\nHost: x\r\nX-Request-Id: caller-1\r\n\r\n');
    assert.equal(named.headers.get('retry-after'), '1');
    assertJsonApiError(named, 'SERVICE_UNAVAILABLE', /shutting down/, /^caller-1$/);
    release();
    await closed;
  });
});
