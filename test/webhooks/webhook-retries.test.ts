// Failed attempts: backoff timing, Retry-After, non-retryable statuses, timeouts, dropped connections,
// redirects, and exhausted attempts, each against a real receiver and checked in the delivery records.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testDialects } from '../helpers/test-databases.ts';
import type { WebhookDelivery } from '../../src/webhooks/delivery/webhook-delivery.ts';
import { startReceiver, type ReceivedRequest } from './fixtures/receiver.ts';
import { startWebhookTestApp, WEBHOOK_TEST_SETTINGS, type WebhookTestApp } from './fixtures/webhook-test-app.ts';

const ms = (iso: string | null) => Date.parse(iso ?? 'invalid');
/** Scheduling slack allowed on top of a computed delay (poll interval, database writes, a busy machine). */
const SLACK_MS = 250;

function assertRetryRecord(
  record: WebhookDelivery | undefined,
  attempt: number,
  error: RegExp,
  httpStatus: number | null,
) {
  assert.ok(record, `attempt ${attempt} has a record`);
  assert.equal(record.attemptNumber, attempt);
  assert.equal(record.status, 'pending');
  assert.match(record.error ?? '', error);
  assert.equal(record.httpStatus, httpStatus);
  assert.ok(record.nextRetryAt, 'a retried attempt keeps its nextRetryAt');
  assert.equal(record.deliveredAt, null);
}

for (const dialect of testDialects()) {
  describe(`webhook retries (${dialect})`, () => {
    let t: WebhookTestApp;
    const cleanups: (() => Promise<unknown>)[] = [];
    before(async () => {
      t = await startWebhookTestApp(dialect);
    });
    after(async () => {
      await t.close();
    });
    async function subscribe(
      retryConfig: Record<string, number>,
      respond: (request: ReceivedRequest, response: ServerResponse, index: number) => void,
    ) {
      const receiver = await startReceiver(respond);
      const webhook = await t.createWebhook({
        name: 'retries',
        url: receiver.url(),
        eventPattern: 'posts.created',
        retryConfig,
      });
      cleanups.push(
        () => t.request({ method: 'DELETE', url: `/admin/webhooks/${webhook.id}`, auth: t.admin }),
        () => receiver.close(),
      );
      return { receiver, id: webhook.id };
    }
    async function cleanUp() {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    }
    const answer = (response: ServerResponse, status: number, headers: Record<string, string> = {}) => {
      response.writeHead(status, headers);
      response.end(`status ${status}`);
    };

    it('retries with exponential backoff until the receiver succeeds, one record per attempt', async (ctx) => {
      ctx.after(cleanUp);
      const { receiver, id } = await subscribe(
        { maxAttempts: 5, initialDelayMs: 100, backoffMultiplier: 2, maxDelayMs: 1000 },
        (_r, response, index) => answer(response, index < 3 ? 500 : 200),
      );
      await t.createPost({ title: 'flaky' });
      const records = await t.waitForDeliveries(id, (d) => d.some((r) => r.status === 'success'));
      const requests = receiver.requests;
      assert.equal(records.length, 4);
      assert.equal(requests.length, 4);
      for (let n = 1; n <= 3; n++) assertRetryRecord(records[n - 1], n, /answered 500/, 500);
      const last = records[3];
      assert.equal(last?.status, 'success');
      assert.equal(last?.attemptNumber, 4);
      assert.equal(last?.nextRetryAt, null);
      assert.ok(last?.deliveredAt);

      // Every attempt of the event is its own record, with its own delivery id, and sends its number.
      assert.equal(new Set(records.map((r) => r.eventId)).size, 1);
      assert.deepEqual(
        requests.map((r) => r.headers['x-service-delivery-id']),
        records.map((r) => r.id),
      );
      assert.deepEqual(
        requests.map((r) => r.headers['x-service-delivery-attempt']),
        ['1', '2', '3', '4'],
      );
      assert.deepEqual(
        requests.map((r) => JSON.parse(r.body).delivery.attempt),
        [1, 2, 3, 4],
      );

      // Delay before attempt n+1 = min(100 * 2^(n-1), 1000): 100, 200, 400 ms.
      const expected = [100, 200, 400];
      for (let n = 1; n <= 3; n++) {
        const record = records[n - 1]!;
        const sentAt = requests[n - 1]!.at;
        const scheduled = ms(record.nextRetryAt) - sentAt;
        assert.ok(
          scheduled >= expected[n - 1]! - 5 && scheduled <= expected[n - 1]! + SLACK_MS,
          `nextRetryAt of attempt ${n} is ${scheduled} ms after it was sent`,
        );
        const gap = requests[n]!.at - sentAt;
        assert.ok(
          gap >= expected[n - 1]! - 5 && gap <= expected[n - 1]! + SLACK_MS,
          `attempt ${n + 1} came ${gap} ms after attempt ${n}`,
        );
        assert.ok(
          requests[n]!.at >= ms(record.nextRetryAt) - 5,
          `attempt ${n + 1} was not sent before its nextRetryAt`,
        );
      }
    });

    it('fails at once on a non-retryable 4xx', async (ctx) => {
      ctx.after(cleanUp);
      const { receiver, id } = await subscribe({ maxAttempts: 5, initialDelayMs: 100 }, (_r, response) =>
        answer(response, 422),
      );
      await t.createPost({ title: 'refused' });
      const [record] = await t.waitForDeliveries(id, (d) => d[0]?.status === 'failed');
      assert.equal(record?.httpStatus, 422);
      assert.equal(record?.nextRetryAt, null);
      assert.equal(record?.responseBody, 'status 422');
      assert.match(record?.error ?? '', /422, which is not retried/);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(receiver.requests.length, 1);
      assert.equal((await t.deliveries(id)).length, 1);
    });

    it('waits as long as Retry-After asks on 429 and 503, capped at maxDelayMs', async (ctx) => {
      ctx.after(cleanUp);
      const { receiver, id } = await subscribe(
        { maxAttempts: 5, initialDelayMs: 100, backoffMultiplier: 2, maxDelayMs: 1500 },
        (_r, response, index) => {
          if (index === 0) answer(response, 429, { 'Retry-After': '1' });
          else if (index === 1) answer(response, 503, { 'Retry-After': '3600' });
          else answer(response, 200);
        },
      );
      await t.createPost({ title: 'busy' });
      const records = await t.waitForDeliveries(id, (d) => d.some((r) => r.status === 'success'), 6000);
      assertRetryRecord(records[0], 1, /answered 429/, 429);
      assertRetryRecord(records[1], 2, /answered 503/, 503);
      assert.equal(records[0]?.responseHeaders?.['retry-after'], '1');
      const [first, second, third] = receiver.requests;
      const waited = [second!.at - first!.at, third!.at - second!.at];
      assert.ok(waited[0]! >= 995 && waited[0]! <= 1000 + SLACK_MS, `Retry-After: 1 waited ${waited[0]} ms`);
      assert.ok(
        waited[1]! >= 1495 && waited[1]! <= 1500 + SLACK_MS,
        `Retry-After: 3600 capped at maxDelayMs waited ${waited[1]} ms`,
      );
    });

    it(`records a timeout when the receiver answers after timeoutMs (${WEBHOOK_TEST_SETTINGS.timeoutMs} ms)`, async (ctx) => {
      ctx.after(cleanUp);
      const held: ServerResponse[] = [];
      ctx.after(() => {
        for (const response of held) response.destroy();
      });
      const { id } = await subscribe({ maxAttempts: 1 }, (_r, response) => void held.push(response));
      const started = Date.now();
      await t.createPost({ title: 'slow' });
      const [record] = await t.waitForDeliveries(id, (d) => d[0]?.status === 'failed');
      const took = Date.now() - started;
      assert.match(record?.error ?? '', /Timed out after 1000 ms/);
      assert.match(record?.error ?? '', /no retries remain/);
      assert.equal(record?.httpStatus, null);
      assert.equal(record?.responseBody, null);
      assert.ok(took >= 1000 && took < 1000 + 2 * SLACK_MS + 500, `the timeout was enforced after ${took} ms`);
    });

    it('retries when the receiver closes the connection without answering', async (ctx) => {
      ctx.after(cleanUp);
      const { id } = await subscribe({ maxAttempts: 2, initialDelayMs: 100 }, (_r, response, index) => {
        if (index === 0) response.socket?.destroy();
        else answer(response, 200);
      });
      await t.createPost({ title: 'hang up' });
      const records = await t.waitForDeliveries(id, (d) => d.some((r) => r.status === 'success'));
      assertRetryRecord(records[0], 1, /connection closed before a complete response/, null);
      assert.equal(records[1]?.status, 'success');
    });

    it('retries when nothing listens at the target, and fails when attempts are exhausted', async (ctx) => {
      ctx.after(cleanUp);
      // A port that was free a moment ago: connections are refused.
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const { port } = probe.address() as AddressInfo;
      await new Promise((resolve) => probe.close(resolve));
      const webhook = await t.createWebhook({
        name: 'nobody',
        url: `http://127.0.0.1:${port}/`,
        eventPattern: 'posts.created',
        retryConfig: { maxAttempts: 2, initialDelayMs: 100 },
      });
      cleanups.push(() => t.request({ method: 'DELETE', url: `/admin/webhooks/${webhook.id}`, auth: t.admin }));
      await t.createPost({ title: 'refused connection' });
      const records = await t.waitForDeliveries(webhook.id, (d) => d.some((r) => r.status === 'failed'));
      assertRetryRecord(records[0], 1, /Connection failed: .*ECONNREFUSED/, null);
      assert.match(records[1]?.error ?? '', /ECONNREFUSED.*no retries remain/);
    });

    it('marks the delivery failed once every attempt has failed', async (ctx) => {
      ctx.after(cleanUp);
      const { receiver, id } = await subscribe(
        { maxAttempts: 3, initialDelayMs: 100, backoffMultiplier: 1 },
        (_r, response) => answer(response, 502),
      );
      await t.createPost({ title: 'down' });
      const records = await t.waitForDeliveries(id, (d) => d.some((r) => r.status === 'failed'));
      assert.equal(records.length, 3);
      assertRetryRecord(records[0], 1, /answered 502/, 502);
      assertRetryRecord(records[1], 2, /answered 502/, 502);
      assert.equal(records[2]?.status, 'failed');
      assert.equal(records[2]?.nextRetryAt, null);
      assert.match(records[2]?.error ?? '', /attempt 3 of 3; no retries remain/);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(receiver.requests.length, 3);
    });

    it('does not follow redirects', async (ctx) => {
      ctx.after(cleanUp);
      const { receiver, id } = await subscribe({ maxAttempts: 3, initialDelayMs: 100 }, (request, response) => {
        if (request.path === '/hook') answer(response, 307, { Location: '/moved' });
        else answer(response, 200);
      });
      await t.createPost({ title: 'moved' });
      const [record] = await t.waitForDeliveries(id, (d) => d[0]?.status === 'failed');
      assert.equal(record?.httpStatus, 307);
      assert.match(record?.error ?? '', /redirect to \/moved.*not followed/);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(
        receiver.requests.map((r) => r.path),
        ['/hook'],
      );
    });
  });
}
