// Responses to requests that arrive together are written together, after all of them were handled,
// and none is lost or reordered on the way.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { installBatchedWrites } from '../../src/http/server/batched-writes.ts';

const CONNECTIONS = 8;

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Reads from the socket until `count` complete responses (each with a content-length body) came in. */
function readResponses(socket: Socket, count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const bodies: string[] = [];
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (;;) {
        const headerEnd = buffered.indexOf('\r\n\r\n');
        if (headerEnd < 0) break;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, headerEnd))?.[1] ?? 0);
        if (buffered.length < headerEnd + 4 + length) break;
        bodies.push(buffered.slice(headerEnd + 4, headerEnd + 4 + length));
        buffered = buffered.slice(headerEnd + 4 + length);
      }
      if (bodies.length >= count) resolve(bodies);
    });
    socket.once('error', reject);
  });
}

describe('batched response writes', () => {
  let app: FastifyInstance;
  let port: number;
  const order: string[] = [];

  before(async () => {
    app = Fastify({ logger: false });
    installBatchedWrites(app);
    // Registered after the batching hook, so it runs when the batch is written.
    app.addHook('onSend', (request, _reply, payload, done) => {
      order.push(`written ${(request.params as { n: string }).n}`);
      done(null, payload);
    });
    app.get('/echo/:n', (request, reply) => {
      const { n } = request.params as { n: string };
      order.push(`handled ${n}`);
      void reply.send({ n: Number(n) });
    });
    app.get('/fails/:n', () => {
      throw Object.assign(new Error('no such thing'), { statusCode: 404 });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  after(() => app.close());

  it('writes the answers to requests read in one pass after all of them are handled', async () => {
    order.length = 0;
    const sockets = await Promise.all(Array.from({ length: CONNECTIONS }, () => open(port)));
    // Let the server accept every connection, so the requests below are all readable at its next poll.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const answers = sockets.map((socket) => readResponses(socket, 1));
    for (const [n, socket] of sockets.entries()) socket.write(`GET /echo/${n} HTTP/1.1\r\nHost: x\r\n\r\n`);
    const bodies = await Promise.all(answers);
    assert.deepEqual(
      bodies.map(([body]) => JSON.parse(body!) as unknown),
      sockets.map((_, n) => ({ n })),
    );
    const firstWrite = order.findIndex((entry) => entry.startsWith('written'));
    const handled = order.filter((entry) => entry.startsWith('handled')).length;
    assert.equal(handled, CONNECTIONS);
    // Unbatched, every answer is written right after its own request is handled (firstWrite = 1).
    assert.ok(firstWrite > 1, `a response was written before the others were handled: ${order.join(', ')}`);
    for (const socket of sockets) socket.destroy();
  });

  it('keeps pipelined answers in order, errors included', async () => {
    const socket = await open(port);
    const answers = readResponses(socket, 4);
    socket.write(
      'GET /echo/1 HTTP/1.1\r\nHost: x\r\n\r\nGET /fails/2 HTTP/1.1\r\nHost: x\r\n\r\n' +
        'GET /echo/3 HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/4 HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    const bodies = (await answers).map((body) => JSON.parse(body) as { n?: number; statusCode?: number });
    assert.deepEqual(
      bodies.map((body) => body.n ?? body.statusCode),
      [1, 404, 3, 4],
    );
    socket.destroy();
  });

  it('answers a lone request without waiting for anything else', async () => {
    const response = await app.inject({ method: 'GET', url: '/echo/7' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { n: 7 });
  });
});
