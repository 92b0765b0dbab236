// One delivery's HTTP exchange on its own: what comes back for a response, a slow or silent
// receiver, a shutdown, and a body past the kept limit.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  createDeliveryAgent,
  createSendClock,
  RESPONSE_BODY_LIMIT_BYTES,
  sendWebhook,
  type SendOptions,
} from '../../src/webhooks/delivery/send-webhook.ts';
import { startReceiver } from './fixtures/receiver.ts';

describe('sendWebhook', () => {
  const agent = createDeliveryAgent({ connectionsPerTarget: 4, allowPrivateTargets: true });
  const clock = createSendClock(2000);
  const options = (extra: Partial<SendOptions> = {}): SendOptions => ({
    clock,
    allowPrivateTargets: true,
    agent,
    ...extra,
  });
  const post = { headers: { 'Content-Type': 'application/json', 'X-Custom': 'yes' }, body: '{"hello":"world"}' };
  after(() => agent.close());

  it('posts the body and headers, and gives back the status, headers (repeated ones joined) and body', async (ctx) => {
    const receiver = await startReceiver((_request, response) => {
      response.setHeader('Set-Cookie', ['a=1', 'b=2']);
      response.setHeader('X-Answer', '42');
      response.statusCode = 202;
      response.end('accepted');
    });
    ctx.after(() => receiver.close());
    const result = await sendWebhook({ url: receiver.url('/in?x=1'), ...post }, options());
    assert.equal(result.kind, 'response');
    assert.ok(result.kind === 'response');
    assert.equal(result.status, 202);
    assert.equal(result.body, 'accepted');
    assert.equal(result.headers['x-answer'], '42');
    assert.equal(result.headers['set-cookie'], 'a=1, b=2');
    const [received] = receiver.requests;
    assert.equal(received?.method, 'POST');
    assert.equal(received?.path, '/in?x=1');
    assert.equal(received?.body, post.body);
    assert.equal(received?.headers['x-custom'], 'yes');
    assert.equal(received?.headers['content-length'], String(post.body.length));
  });

  it('keeps only the first bytes of a large body', async (ctx) => {
    const receiver = await startReceiver(
      (_request, response) => void response.end('y'.repeat(RESPONSE_BODY_LIMIT_BYTES * 4)),
    );
    ctx.after(() => receiver.close());
    const result = await sendWebhook({ url: receiver.url(), ...post }, options());
    assert.ok(result.kind === 'response');
    assert.equal(result.body.length, RESPONSE_BODY_LIMIT_BYTES);
  });

  it('times out over the whole exchange, including a body that never ends', async (ctx) => {
    const receiver = await startReceiver((_request, response) => {
      response.writeHead(200);
      response.write('partial');
    });
    ctx.after(() => receiver.close());
    const started = Date.now();
    const result = await sendWebhook({ url: receiver.url(), ...post }, options({ clock: createSendClock(300) }));
    assert.deepEqual(result, {
      kind: 'error',
      retryable: true,
      message: 'Timed out after 300 ms without a complete response',
    });
    assert.ok(Date.now() - started < 1500);
  });

  it('times out each of many exchanges sharing a clock at its own deadline, past ones that settled', async (ctx) => {
    // Every third request is answered at once; the others never are. Started 100 ms apart on one
    // 400 ms clock, the silent ones time out in the order they began, each about 400 ms after its start.
    let seen = 0;
    const receiver = await startReceiver((_request, response) => {
      if (seen++ % 3 === 0) response.end('ok');
    });
    ctx.after(() => receiver.close());
    const shared = createSendClock(400);
    const began: number[] = [];
    const pending: Promise<{ kind: string; after: number }>[] = [];
    for (let i = 0; i < 6; i++) {
      began.push(Date.now());
      pending.push(
        sendWebhook({ url: receiver.url(), ...post }, options({ clock: shared })).then((result) => ({
          kind: result.kind,
          after: Date.now() - began[i]!,
        })),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const results = await Promise.all(pending);
    assert.deepEqual(
      results.map((result) => result.kind),
      ['response', 'error', 'error', 'response', 'error', 'error'],
    );
    for (const [i, result] of results.entries()) {
      if (result.kind === 'response') assert.ok(result.after < 300, `answered exchange ${i} took ${result.after} ms`);
      // Timers fire late on a busy machine, never early.
      else assert.ok(result.after >= 390 && result.after < 1400, `exchange ${i} timed out after ${result.after} ms`);
    }
  });

  describe('on shutdown', () => {
    let stopping: ReturnType<typeof createSendClock>;
    before(() => {
      stopping = createSendClock(2000);
    });

    it('answers aborted for every exchange in flight, and at once for one asked after', async (ctx) => {
      const receiver = await startReceiver(() => undefined);
      ctx.after(() => receiver.close());
      const pending = [1, 2, 3].map(() => sendWebhook({ url: receiver.url(), ...post }, options({ clock: stopping })));
      await receiver.waitForRequests(3);
      stopping.abortAll();
      assert.deepEqual(await Promise.all(pending), [{ kind: 'aborted' }, { kind: 'aborted' }, { kind: 'aborted' }]);
      assert.deepEqual(await sendWebhook({ url: receiver.url(), ...post }, options({ clock: stopping })), {
        kind: 'aborted',
      });
      assert.equal(receiver.requests.length, 3);
    });
  });

  it('refuses a private target without connecting when they are not allowed', async () => {
    const result = await sendWebhook(
      { url: 'http://127.0.0.1:9/hook', ...post },
      options({ allowPrivateTargets: false }),
    );
    assert.equal(result.kind, 'error');
    assert.ok(result.kind === 'error' && !result.retryable && /private targets are not allowed/.test(result.message));
  });
});
