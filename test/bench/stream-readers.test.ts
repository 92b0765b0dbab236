// The fan-out driver's stream clients, native (bench/sse-reader.c) and Node: against a local SSE
// server, each reads every client's preamble, counts warm-up events, times each bench post's event on
// the monotonic clock when it is read (whole messages only, however the bytes are split), notices a
// stream whose connection closes, and refuses a stream that is not answered 200.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSseReader } from '../../bench/sse-reader-build.ts';
import { openNativeReaders } from '../../bench/native-stream-readers.ts';
import { openNodeReaders } from '../../bench/node-stream-readers.ts';
import { monotonicMs, type StreamReaders } from '../../bench/stream-readers.ts';

const CLIENTS = 60; // more than one connect group of 50
const AUTHORIZATION = 'Bearer bench-key';

const message = (title: string, id: number) =>
  `event: posts.created\nid: ${id}\ndata: {"new":{"id":"p${id}","title":"${title}"}}\n\n`;

/** An SSE endpoint like svc's: chunked, a preamble, then whatever the test writes to every client. */
class SseServer {
  readonly clients: ServerResponse[] = [];
  readonly server: Server = createServer((request, response) => {
    if (request.headers.authorization !== AUTHORIZATION || request.url !== '/v1/posts/stream?events=created') {
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"errors":[{"status":"401"}]}');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write('retry: 1000\n: connected\n\n');
    this.clients.push(response);
  });

  async listen(): Promise<URL> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return new URL(`http://127.0.0.1:${(this.server.address() as AddressInfo).port}`);
  }

  write(text: string): void {
    for (const client of this.clients) client.write(text);
  }

  close(): Promise<void> {
    for (const client of this.clients) client.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

async function until(
  readers: StreamReaders,
  done: (counts: Awaited<ReturnType<StreamReaders['counts']>>) => boolean,
): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done(await readers.counts())) {
    if (Date.now() > deadline) assert.fail(`timed out; counts ${JSON.stringify(await readers.counts())}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const native = await buildSseReader();
const kinds: {
  name: string;
  open: (url: URL, authorization: string) => Promise<StreamReaders>;
  skip: string | false;
}[] = [
  {
    name: 'native',
    open: (url, authorization) => openNativeReaders('path' in native ? native.path : '', url, authorization, CLIENTS),
    skip: 'error' in native ? `no C compiler built bench/sse-reader.c: ${native.error}` : false,
  },
  { name: 'node', open: (url, authorization) => openNodeReaders(url, authorization, CLIENTS), skip: false },
];
if ('error' in native) console.log(`# native SSE reader tests skipped: ${native.error}`);

for (const kind of kinds) {
  describe(`bench SSE stream readers (${kind.name})`, { skip: kind.skip }, () => {
    const server = new SseServer();
    let url: URL;
    before(async () => {
      url = await server.listen();
    });
    after(() => server.close());

    it('times each post on every client as it is read, counts warm-ups, and sees streams end', async () => {
      const readers = await kind.open(url, AUTHORIZATION);
      try {
        assert.equal(readers.kind, kind.name);
        assert.equal(readers.connected, CLIENTS);
        assert.equal(server.clients.length, CLIENTS);

        server.write(message('sse-warm-1', 1) + message('sse-warm-2', 2));
        await until(readers, (c) => c.warm === 2 * CLIENTS);

        const sent = monotonicMs();
        // One message split across writes (the mark itself cut): counted once, when its end is read.
        const split = message('sse-41', 3);
        server.write(split.slice(0, 40));
        await new Promise((r) => setTimeout(r, 30));
        const before41End = monotonicMs();
        server.write(split.slice(40) + message('sse-42', 4) + message('other-43', 5));
        await until(readers, (c) => c.timed === 2 * CLIENTS);
        const read = monotonicMs();

        const events = await readers.timedEvents();
        assert.equal(events.length, 2 * 2 * CLIENTS);
        const seqs = new Map<number, number>();
        for (let i = 0; i < events.length; i += 2) {
          const seq = events[i]!;
          const at = events[i + 1]!;
          seqs.set(seq, (seqs.get(seq) ?? 0) + 1);
          assert.ok(at >= sent && at <= read, `read at ${at}, between ${sent} and ${read}`);
          if (seq === 41) assert.ok(at >= before41End, 'a split message is timed when its end is read');
        }
        assert.deepEqual([...seqs].sort(), [
          [41, CLIENTS],
          [42, CLIENTS],
        ]);

        // What svc does to a client that does not keep up.
        server.clients.pop()!.destroy();
        server.clients.pop()!.destroy();
        await until(readers, (c) => c.closed === 2);
        const counts = await readers.counts();
        assert.equal(counts.warm, 2 * CLIENTS);
        assert.ok(counts.cpuMs >= 0);
      } finally {
        readers.close();
      }
    });

    it('refuses a stream that is not answered 200', async () => {
      await assert.rejects(kind.open(url, 'Bearer wrong'), /401/);
    });
  });
}
