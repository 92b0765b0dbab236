// Deliveries to real receivers on 127.0.0.1: headers, payload, signature, custom headers, fieldIds,
// test pings, redelivery, response bodies, and per-target concurrency. Signatures are checked with
// the Standard Webhooks reference library, as a receiver would check them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { testDialects } from '../helpers/test-databases.ts';
import { RESPONSE_BODY_LIMIT_BYTES } from '../../src/webhooks/delivery/send-webhook.ts';
import { startReceiver, type ReceivedRequest } from './fixtures/receiver.ts';
import { startWebhookTestApp, type WebhookTestApp } from './fixtures/webhook-test-app.ts';

const SENT_HEADERS = [
  'connection',
  'content-length',
  'content-type',
  'host',
  'user-agent',
  'webhook-id',
  'webhook-signature',
  'webhook-timestamp',
  'x-service-delivery-attempt',
  'x-service-delivery-id',
  'x-service-event',
  'x-service-event-id',
];

/** Verifies a request as a receiver would, with the Standard Webhooks reference library. */
function verifySignature(request: ReceivedRequest, secret: string): boolean {
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  try {
    new Webhook(secret).verify(request.body, headers);
    return true;
  } catch {
    return false;
  }
}

for (const dialect of testDialects()) {
  describe(`webhook delivery (${dialect})`, () => {
    let t: WebhookTestApp;
    const cleanups: (() => Promise<unknown>)[] = [];
    before(async () => {
      t = await startWebhookTestApp(dialect);
    });
    after(async () => {
      await t.close();
    });
    /** A receiver and a subscription to it, both removed after the test. */
    async function subscribe(
      body: Record<string, unknown>,
      respond?: (request: ReceivedRequest, response: ServerResponse, index: number) => void,
    ) {
      const receiver = await startReceiver(respond);
      const webhook = await t.createWebhook({ name: 'test', url: receiver.url(), ...body });
      cleanups.push(
        () => t.request({ method: 'DELETE', url: `/admin/webhooks/${webhook.id}`, auth: t.admin }),
        () => receiver.close(),
      );
      return { receiver, ...webhook };
    }
    async function cleanUp() {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    }

    it('POSTs the event with exactly the spec headers and a verifiable Standard Webhooks signature', async (ctx) => {
      ctx.after(cleanUp);
      const { receiver, id, secret } = await subscribe({ eventPattern: 'posts.created' });
      const before = Math.floor(Date.now() / 1000);
      const postId = await t.createPost({ title: 'Hello', body: 'World' });
      const [request] = await receiver.waitForRequests(1);
      assert.ok(request);
      const [delivery] = await t.waitForDeliveries(id, (d) => d[0]?.status === 'success');
      assert.ok(delivery);

      assert.equal(request.method, 'POST');
      assert.equal(request.path, '/hook');
      assert.deepEqual(Object.keys(request.headers).sort(), SENT_HEADERS);
      assert.equal(request.headers['content-type'], 'application/json');
      assert.equal(request.headers['user-agent'], 'Service-Webhooks/1.0');
      assert.equal(request.headers['x-service-event'], 'posts.created');
      assert.equal(request.headers['x-service-delivery-id'], delivery.id);
      assert.equal(request.headers['x-service-delivery-attempt'], '1');
      assert.equal(request.headers['x-service-event-id'], delivery.eventId);
      assert.equal(request.headers['webhook-id'], delivery.eventId);
      const timestamp = Number(request.headers['webhook-timestamp']);
      assert.ok(timestamp >= before && timestamp <= Math.ceil(Date.now() / 1000), String(timestamp));
      assert.ok(verifySignature(request, secret), 'signature verifies with the secret returned at creation');
      assert.equal(verifySignature({ ...request, body: `${request.body} ` }, secret), false);

      const payload = JSON.parse(request.body) as Record<string, any>; // any: asserted member by member below
      assert.deepEqual(Object.keys(payload), ['id', 'event', 'delivery']);
      assert.equal(payload.id, delivery.eventId);
      assert.deepEqual(payload.delivery, { id: delivery.id, attempt: 1 });
      assert.deepEqual(Object.keys(payload.event), [
        'type',
        'resource',
        'resourceId',
        'createdAt',
        'data',
        'sessionVariables',
        'traceContext',
      ]);
      assert.equal(payload.event.type, 'posts.created');
      assert.equal(payload.event.resource, 'posts');
      assert.equal(payload.event.resourceId, postId);
      assert.match(payload.event.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(payload.event.data.old, null);
      assert.equal(payload.event.data.new.title, 'Hello');
      assert.deepEqual(payload.event.data.changes.updated, []);
      assert.ok(payload.event.data.changes.added.includes('title'));
      assert.deepEqual(payload.event.sessionVariables, { userId: 'editor-user', role: 'editor' });
      assert.equal(typeof payload.event.traceContext.requestId, 'string');

      assert.equal(delivery.webhookId, id);
      assert.equal(delivery.eventType, 'posts.created');
      assert.equal(delivery.httpStatus, 200);
      assert.equal(delivery.requestPayload, request.body);
      assert.equal(delivery.responseBody, 'ok');
      assert.equal(delivery.responseHeaders?.['content-length'], '2');
      assert.equal(delivery.error, null);
      assert.equal(delivery.nextRetryAt, null);
      assert.equal(delivery.attemptNumber, 1);
      assert.ok(delivery.deliveredAt && delivery.deliveredAt >= delivery.createdAt);
    });

    it("adds the subscription's custom headers", async (ctx) => {
      ctx.after(cleanUp);
      const { receiver } = await subscribe({
        eventPattern: 'posts.*',
        headers: { 'X-Tenant': 'acme', Authorization: 'Bearer receiver-token' },
      });
      await t.createPost({ title: 'with headers' });
      const [request] = await receiver.waitForRequests(1);
      assert.equal(request?.headers['x-tenant'], 'acme');
      assert.equal(request?.headers.authorization, 'Bearer receiver-token');
      assert.equal(request?.headers['user-agent'], 'Service-Webhooks/1.0');
    });

    it('includes `fields` keyed by name for the listed field ids, from the new record or, on delete, the old one', async (ctx) => {
      ctx.after(cleanUp);
      const { receiver } = await subscribe({
        eventPattern: 'posts.*',
        fieldIds: ['posts.title', 'custom.note', 'posts.views', 'no.such.field'],
      });
      const { receiver: plain } = await subscribe({ eventPattern: 'posts.*' });
      const postId = await t.createPost({ title: 'Fielded', note: 'remember' });
      const deleted = await t.request({ method: 'DELETE', url: `/v1/posts/${postId}`, auth: await t.as('editor') });
      assert.equal(deleted.statusCode, 204);
      const [created, removed] = await receiver.waitForRequests(2);
      assert.deepEqual(JSON.parse(created?.body ?? '').fields, {
        title: { id: 'posts.title', type: 'string', value: 'Fielded' },
        views: { id: 'posts.views', type: 'integer', value: 0 },
        note: { id: 'custom.note', type: 'string', value: 'remember' },
      });
      const removedPayload = JSON.parse(removed?.body ?? '');
      assert.equal(removedPayload.event.type, 'posts.deleted');
      assert.equal(removedPayload.event.data.new, null);
      assert.deepEqual(removedPayload.fields.title, { id: 'posts.title', type: 'string', value: 'Fielded' });
      const [plainRequest] = await plain.waitForRequests(1);
      assert.equal('fields' in JSON.parse(plainRequest?.body ?? ''), false);
    });

    it('sends a test ping through the same path and records it', async (ctx) => {
      ctx.after(cleanUp);
      const { receiver, id, secret } = await subscribe({ eventPattern: 'categories.deleted' });
      const response = await t.request({ method: 'POST', url: `/admin/webhooks/${id}/test`, auth: t.admin });
      assert.equal(response.statusCode, 202, response.body);
      const { data } = response.json<{
        data: { type: string; id: string; attributes: { status: string; attemptNumber: number } };
      }>();
      assert.equal(data.type, 'webhook-deliveries');
      assert.equal(data.attributes.attemptNumber, 1);
      const [request] = await receiver.waitForRequests(1);
      assert.ok(request && verifySignature(request, secret));
      assert.equal(request.headers['x-service-event'], 'webhook.ping');
      assert.equal(request.headers['x-service-delivery-id'], data.id);
      const payload = JSON.parse(request.body);
      assert.equal(payload.event.type, 'webhook.ping');
      assert.equal(payload.event.resourceId, id);
      const [record] = await t.waitForDeliveries(id, (d) => d[0]?.status === 'success');
      assert.equal(record?.id, data.id);
    });

    it('redelivers a recorded delivery as a new attempt record', async (ctx) => {
      ctx.after(cleanUp);
      const { receiver, id } = await subscribe({ eventPattern: 'posts.updated' });
      const postId = await t.createPost({ title: 'v1' });
      const patched = await t.request({
        method: 'PATCH',
        url: `/v1/posts/${postId}`,
        auth: await t.as('editor'),
        payload: { title: 'v2' },
      });
      assert.equal(patched.statusCode, 200);
      const [first] = await t.waitForDeliveries(id, (d) => d[0]?.status === 'success');
      assert.ok(first);
      const retried = await t.request({
        method: 'POST',
        url: `/admin/webhooks/${id}/deliveries/${first.id}/retry`,
        auth: t.admin,
      });
      assert.equal(retried.statusCode, 202, retried.body);
      const second = retried.json<{
        data: { id: string; attributes: { attemptNumber: number; status: string; eventId: string } };
      }>().data;
      assert.equal(second.attributes.attemptNumber, 2);
      assert.equal(second.attributes.eventId, first.eventId);
      const records = await t.waitForDeliveries(id, (d) => d.length === 2 && d.every((r) => r.status === 'success'));
      assert.deepEqual(
        records.map((r) => r.id),
        [first.id, second.id],
      );
      const requests = await receiver.waitForRequests(2);
      assert.deepEqual(
        requests.map((r) => r.headers['x-service-event-id']),
        [first.eventId, first.eventId],
      );
      assert.deepEqual(
        requests.map((r) => r.headers['x-service-delivery-attempt']),
        ['1', '2'],
      );
      assert.deepEqual(JSON.parse(requests[1]?.body ?? '').delivery, { id: second.id, attempt: 2 });

      const missing = await t.request({
        method: 'POST',
        url: `/admin/webhooks/${id}/deliveries/00000000-0000-7000-8000-000000000000/retry`,
        auth: t.admin,
      });
      assert.equal(missing.statusCode, 404);
    });

    it(`keeps the first ${RESPONSE_BODY_LIMIT_BYTES} bytes of a larger response body`, async (ctx) => {
      ctx.after(cleanUp);
      const { id } = await subscribe(
        { eventPattern: 'posts.created' },
        (_request, response) => void response.end('x'.repeat(RESPONSE_BODY_LIMIT_BYTES * 3)),
      );
      await t.createPost({ title: 'big answer' });
      const [record] = await t.waitForDeliveries(id, (d) => d[0]?.status === 'success');
      assert.equal(record?.responseBody?.length, RESPONSE_BODY_LIMIT_BYTES);
    });

    it('lists deliveries by status', async (ctx) => {
      ctx.after(cleanUp);
      const { id } = await subscribe(
        { eventPattern: 'posts.created', retryConfig: { maxAttempts: 1 } },
        (_request, response, index) => {
          response.statusCode = index === 0 ? 200 : 410;
          response.end();
        },
      );
      await t.createPost({ title: 'one' });
      await t.waitForDeliveries(id, (d) => d.length === 1 && d[0]?.status === 'success');
      await t.createPost({ title: 'two' });
      await t.waitForDeliveries(id, (d) => d.length === 2 && d.some((r) => r.status === 'failed'));
      for (const status of ['success', 'failed', 'pending']) {
        const response = await t.request({
          method: 'GET',
          url: `/admin/webhooks/${id}/deliveries?status=${status}`,
          auth: t.admin,
        });
        const body = response.json<{ data: { attributes: { status: string } }[]; meta: { total: number } }>();
        assert.equal(body.meta.total, status === 'pending' ? 0 : 1, status);
        assert.ok(body.data.every((d) => d.attributes.status === status));
      }
    });

    it('does not let a slow receiver delay deliveries to another target', async (ctx) => {
      ctx.after(cleanUp);
      const held: ServerResponse[] = [];
      let open = 0;
      let mostOpen = 0;
      const { receiver: slow } = await subscribe(
        { eventPattern: 'categories.created', retryConfig: { maxAttempts: 1 } },
        (_request, response) => {
          mostOpen = Math.max(mostOpen, ++open);
          response.on('close', () => open--);
          held.push(response);
        },
      );
      const { receiver: fast } = await subscribe({ eventPattern: 'categories.created' });
      const count = 40; // more than the per-target concurrency (32)
      const editor = await t.as('editor');
      for (let i = 0; i < count; i++) {
        const response = await t.request({
          method: 'POST',
          url: '/v1/categories',
          auth: editor,
          payload: { name: `c${i}` },
        });
        assert.equal(response.statusCode, 201);
      }
      await fast.waitForRequests(count, { timeoutMs: 3000 });
      assert.ok(mostOpen <= 32, `at most 32 requests in flight to one target, saw ${mostOpen}`);
      // Answering frees slots for the slow target's waiting attempts (those held past timeoutMs fail).
      const answer = setInterval(() => {
        for (const response of held.splice(0)) response.end('late');
      }, 20);
      try {
        await slow.waitForRequests(count, { timeoutMs: 5000 });
      } finally {
        clearInterval(answer);
      }
    });
  });
}
