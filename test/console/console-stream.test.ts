// The console's stream reader (console/src/lib/sse.ts), run in Node against a real svc: it sends the key
// in the Authorization header (never in the URL), and after the connection is cut it reconnects with
// Last-Event-ID, so an event written while it was away still arrives.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { useSession } from '../../console/src/lib/api.ts';
import { openStream, type SseMessage } from '../../console/src/lib/sse.ts';

/** Polls `check` every 25 ms until it holds, at most `ms`. */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

for (const dialect of testDialects()) {
  describe(`console stream reader (${dialect})`, () => {
    let t: TestApp;
    let proxy: TcpProxy;
    let base: string;
    let key: string;

    before(async () => {
      // A short retry keeps the reconnect quick; the replay window covers the time away.
      t = await startTestApp(dialect, {
        stream: { heartbeatMs: 30000, retryMs: 200, allowQueryToken: false, replayWindow: 60000 },
      });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
      proxy = await TcpProxy.start(address.port);
      base = proxy.through(`http://127.0.0.1:${address.port}`).replace(/\/$/, '');
      key = (await t.as('editor')).replace('Bearer ', '');
    });
    after(async () => {
      await proxy?.close();
      await t?.close();
    });

    it('reads events with the Authorization header and resumes after a cut with Last-Event-ID', async () => {
      useSession({ kind: 'user', token: key });
      const messages: SseMessage[] = [];
      const states: string[] = [];
      const stop = openStream(`${base}/v1/posts/stream`, {
        onMessage: (message) => messages.push(message),
        onState: (state) => states.push(state),
      });
      try {
        await until(() => states.includes('open'), 10_000, 'the stream to open');
        const first = await t.request({
          method: 'POST',
          url: '/v1/posts',
          auth: `Bearer ${key}`,
          payload: { title: 'before the cut' },
        });
        assert.equal(first.statusCode, 201);
        await until(() => messages.some((m) => m.data.includes('before the cut')), 10_000, 'the first event');
        assert.equal(messages[0]!.event, 'posts.created');
        assert.ok(messages[0]!.id.length > 0);

        const opened = states.filter((s) => s === 'open').length;
        await proxy.cut();
        await until(() => states.at(-1) === 'error' || states.at(-1) === 'connecting', 10_000, 'the cut to be noticed');
        // Written while the reader is away: only a resume with Last-Event-ID brings it back.
        await t.request({
          method: 'POST',
          url: '/v1/posts',
          auth: `Bearer ${key}`,
          payload: { title: 'during the cut' },
        });
        await proxy.restore();
        await until(
          () => messages.some((m) => m.data.includes('during the cut')),
          15_000,
          'the event written during the cut',
        );
        assert.ok(states.filter((s) => s === 'open').length > opened, 'the reader reconnected');
        assert.equal(
          messages.filter((m) => m.data.includes('before the cut')).length,
          1,
          'no event is delivered twice',
        );
      } finally {
        stop();
        useSession(null);
      }
    });

    it('stops on a refused key instead of retrying forever', async () => {
      useSession({ kind: 'user', token: 'svc_not-a-real-key' });
      const states: string[] = [];
      const details: string[] = [];
      const stop = openStream(`${base}/v1/posts/stream`, {
        onMessage: () => {},
        onState: (state, detail) => {
          states.push(state);
          if (detail) details.push(detail);
        },
      });
      try {
        await until(() => states.includes('closed'), 10_000, 'the reader to give up');
        assert.deepEqual(states, ['connecting', 'error', 'closed']);
        assert.match(details.join(' '), /key/i);
      } finally {
        stop();
        useSession(null);
      }
    });
  });
}
