// Slow clients and connection floods over real sockets: a request must arrive whole within
// server.requestTimeoutMs (headers and body; the response, such as an event stream, is not limited),
// and connections past server.maxConnections are closed as they arrive.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SseClient } from '../helpers/sse-client.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

const REQUEST_TIMEOUT_MS = 500;
const MAX_CONNECTIONS = 4;

interface SlowExchange {
  /** What the server wrote before closing. */
  answer: string;
  /** Milliseconds from the first byte sent to the close. */
  closedAfterMs: number;
  /** Body bytes written before the close. */
  bytesSent: number;
}

/** A POST whose 100-byte body is sent one byte every `everyMs`, until the server closes or 10 s pass. */
function trickle(port: number, everyMs: number, authorization: string): Promise<SlowExchange> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    let bytesSent = 0;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after 10 s (${bytesSent} bytes sent)`));
    }, 10_000);
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `POST /v1/categories HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`,
      );
      timer = setInterval(() => {
        if (bytesSent < 100 && socket.writable) {
          socket.write(' ');
          bytesSent++;
        }
      }, everyMs);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({
        answer: Buffer.concat(chunks).toString('utf8'),
        closedAfterMs: performance.now() - started,
        bytesSent,
      });
    });
  });
}

/** A connection that has written a partial request line, so the server holds it; resolves once connected. */
function holdConnection(port: number): Promise<{ socket: Socket; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1');
    const closed = new Promise<string>((done) =>
      socket.on('close', () => done(Buffer.concat(chunks).toString('utf8'))),
    );
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/** Whether the promise settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([promise.then(() => true), sleep(ms).then(() => false)]);
}

for (const dialect of testDialects()) {
  describe(`request timeout and connection ceiling (${dialect})`, () => {
    let t: TestApp;
    let port: number;
    let baseUrl: string;

    before(async () => {
      t = await startTestApp(dialect, {
        server: {
          port: 0,
          host: '127.0.0.1',
          cors: { origins: [] },
          bodyLimitBytes: 1048576,
          requestTimeoutMs: REQUEST_TIMEOUT_MS,
          maxConnections: MAX_CONNECTIONS,
        },
        stream: { heartbeatMs: 200, retryMs: 3000, allowQueryToken: true, replayWindow: 100 },
      });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
      port = address.port;
      baseUrl = `http://127.0.0.1:${port}`;
    });

    after(async () => {
      await t.close();
    });

    it('answers 408 REQUEST_TIMEOUT and closes a request whose body trickles in past the timeout', async () => {
      const editor = await t.as('editor');
      const exchange = await trickle(port, 100, editor);
      // Node looks for late requests every timeout / 4: closed between the timeout and a few looks later.
      assert.ok(exchange.closedAfterMs >= REQUEST_TIMEOUT_MS - 50, `closed after ${exchange.closedAfterMs} ms`);
      assert.ok(exchange.closedAfterMs < REQUEST_TIMEOUT_MS + 3_000, `closed after ${exchange.closedAfterMs} ms`);
      assert.ok(exchange.bytesSent < 100, 'the whole body was sent before the close');
      const [head = '', body = ''] = exchange.answer.split('\r\n\r\n');
      assert.match(head, /^HTTP\/1\.1 408 /);
      assert.equal(JSON.parse(body).errors[0].code, 'REQUEST_TIMEOUT');
    });

    it('only closes a request answered before its body arrived (no 408 after the answer)', async () => {
      const exchange = await trickle(port, 100, 'Bearer not-a-valid-token');
      assert.ok(exchange.bytesSent < 100, 'the whole body was sent before the close');
      assert.match(exchange.answer, /^HTTP\/1\.1 401 /);
      assert.equal(exchange.answer.match(/HTTP\/1\.1 /g)?.length, 1, exchange.answer);
    });

    it('answers a request that arrives in time as usual', async () => {
      // `close`: a kept-alive connection would count against the ceiling in the next test.
      const response = await fetch(`${baseUrl}/healthz`, { headers: { connection: 'close' } });
      assert.equal(response.status, 200);
    });

    it('keeps an event stream open past the request timeout', async () => {
      const client = await SseClient.connect(`${baseUrl}/v1/posts/stream`, {
        headers: { authorization: await t.as('editor') },
      });
      try {
        assert.equal(client.status, 200);
        await client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
        await sleep(REQUEST_TIMEOUT_MS * 3);
        assert.equal(await settlesWithin(client.ended, 0), false, 'the stream was closed');
        // Still delivering: a heartbeat arrives after the timeout has long passed.
        const seen = client.blocks.length;
        await client.waitFor(() => client.blocks.length > seen, {
          timeoutMs: 3_000,
          what: 'a heartbeat after the timeout',
        });
      } finally {
        client.close();
      }
    });

    it('closes connection N+1 at once and accepts again once one closes', async () => {
      // Earlier tests' sockets may still be counted until the server sees them close.
      await sleep(100);
      const held = [];
      for (let i = 0; i < MAX_CONNECTIONS; i++) held.push(await holdConnection(port));
      try {
        // The server counts a connection when it accepts it: let it accept the four.
        await sleep(100);
        for (const { closed } of held)
          assert.equal(await settlesWithin(closed, 0), false, 'a connection within the ceiling was closed');
        const extra = await holdConnection(port);
        assert.equal(await settlesWithin(extra.closed, 2_000), true, 'connection N+1 was kept open');
        assert.equal(await extra.closed, '', 'connection N+1 got an answer instead of a close');
      } finally {
        for (const { socket } of held) socket.destroy();
      }
      // Once the held ones are gone, a new connection is served (bounded retries while the server sees the closes).
      let status = 0;
      for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
        await sleep(50);
        status = await fetch(`${baseUrl}/healthz`, { headers: { connection: 'close' } }).then(
          (r) => r.status,
          () => 0,
        );
      }
      assert.equal(status, 200);
    });
  });
}
