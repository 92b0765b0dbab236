// Admin API for webhook subscriptions: validation scenarios with pointers, the secret shown once,
// listing, update, delete, and who may call it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { startWebhookTestApp, type WebhookTestApp } from './fixtures/webhook-test-app.ts';

interface ErrorObject {
  status: string;
  code: string;
  title: string;
  detail: string;
  source?: { pointer?: string; parameter?: string };
}

const VALID = { name: 'orders hook', url: 'https://hooks.example.com/in', eventPattern: 'posts.*' };
const at = (path: string) => `/data/attributes/${path}`;

/** Create bodies that must be refused, with the pointer of every problem expected. */
const INVALID_CREATES: { name: string; body: unknown; pointers: string[] }[] = [
  { name: 'an empty body names every required field', body: {}, pointers: [at('name'), at('url'), at('eventPattern')] },
  { name: 'a body that is not an object', body: [VALID], pointers: ['/data'] },
  { name: 'an empty name', body: { ...VALID, name: '' }, pointers: [at('name')] },
  { name: 'a name of 256 characters', body: { ...VALID, name: 'n'.repeat(256) }, pointers: [at('name')] },
  { name: 'a name that is not a string', body: { ...VALID, name: 42 }, pointers: [at('name')] },
  { name: 'a url that is not http(s)', body: { ...VALID, url: 'ftp://hooks.example.com/in' }, pointers: [at('url')] },
  { name: 'a url that does not parse', body: { ...VALID, url: 'hooks.example.com/in' }, pointers: [at('url')] },
  {
    name: 'a url over 2048 characters',
    body: { ...VALID, url: `https://hooks.example.com/${'a'.repeat(2030)}` },
    pointers: [at('url')],
  },
  {
    name: 'a url with credentials',
    body: { ...VALID, url: 'https://user:pw@hooks.example.com/in' },
    pointers: [at('url')],
  },
  {
    name: 'a pattern with other characters',
    body: { ...VALID, eventPattern: 'posts created' },
    pointers: [at('eventPattern')],
  },
  {
    name: 'a pattern of three parts',
    body: { ...VALID, eventPattern: 'posts.created.now' },
    pointers: [at('eventPattern')],
  },
  {
    name: 'a pattern with an unknown kind',
    body: { ...VALID, eventPattern: 'posts.published' },
    pointers: [at('eventPattern')],
  },
  { name: 'headers as an array', body: { ...VALID, headers: ['X-A: 1'] }, pointers: [at('headers')] },
  {
    name: 'a header value that is not a string',
    body: { ...VALID, headers: { 'X-Tenant': 1 } },
    pointers: [at('headers/X-Tenant')],
  },
  {
    name: 'a hop-by-hop header',
    body: { ...VALID, headers: { Connection: 'close' } },
    pointers: [at('headers/Connection')],
  },
  {
    name: 'one of our own headers',
    body: { ...VALID, headers: { 'x-service-event': 'fake' } },
    pointers: [at('headers/x-service-event')],
  },
  {
    name: 'a signature header',
    body: { ...VALID, headers: { 'webhook-signature': 'v1,x' } },
    pointers: [at('headers/webhook-signature')],
  },
  {
    name: 'an invalid header name',
    body: { ...VALID, headers: { 'Bad Name': 'x' } },
    pointers: [at('headers/Bad Name')],
  },
  {
    name: 'a header value with a line break',
    body: { ...VALID, headers: { 'X-A': 'a\r\nInjected: 1' } },
    pointers: [at('headers/X-A')],
  },
  { name: 'enabled that is not a boolean', body: { ...VALID, enabled: 'yes' }, pointers: [at('enabled')] },
  { name: 'retryConfig that is not an object', body: { ...VALID, retryConfig: 5 }, pointers: [at('retryConfig')] },
  {
    name: 'maxAttempts below 1',
    body: { ...VALID, retryConfig: { maxAttempts: 0 } },
    pointers: [at('retryConfig/maxAttempts')],
  },
  {
    name: 'every retry setting out of range',
    body: {
      ...VALID,
      retryConfig: { maxAttempts: 101, backoffMultiplier: 0.5, initialDelayMs: 99, maxDelayMs: 3600001 },
    },
    pointers: [
      at('retryConfig/maxAttempts'),
      at('retryConfig/backoffMultiplier'),
      at('retryConfig/initialDelayMs'),
      at('retryConfig/maxDelayMs'),
    ],
  },
  {
    name: 'a fractional attempt count',
    body: { ...VALID, retryConfig: { maxAttempts: 2.5 } },
    pointers: [at('retryConfig/maxAttempts')],
  },
  {
    name: 'an unknown retry setting',
    body: { ...VALID, retryConfig: { retries: 3 } },
    pointers: [at('retryConfig/retries')],
  },
  { name: 'fieldIds that is not an array', body: { ...VALID, fieldIds: 'posts.title' }, pointers: [at('fieldIds')] },
  {
    name: 'fieldIds with non-string entries',
    body: { ...VALID, fieldIds: ['posts.title', 7, ''] },
    pointers: [at('fieldIds/1'), at('fieldIds/2')],
  },
  { name: 'an unknown member', body: { ...VALID, events: ['posts.created'] }, pointers: [at('events')] },
  { name: 'a read-only member', body: { ...VALID, secret: 'whsec_mine' }, pointers: [at('secret')] },
  {
    name: 'several problems at once',
    body: { name: '', url: 'mailto:x@example.com', eventPattern: '**', enabled: 1 },
    pointers: [at('name'), at('url'), at('eventPattern'), at('enabled')],
  },
];

for (const dialect of testDialects()) {
  describe(`admin webhooks API (${dialect})`, () => {
    let t: WebhookTestApp;
    before(async () => {
      t = await startWebhookTestApp(dialect);
    });
    after(async () => {
      await t.close();
    });

    const post = (body: unknown) =>
      t.request({ method: 'POST', url: '/admin/webhooks', auth: t.admin, payload: body as object });

    for (const scenario of INVALID_CREATES) {
      it(`refuses ${scenario.name} with 400 INVALID_RESOURCE_DATA`, async () => {
        const response = await post(scenario.body);
        assert.equal(response.statusCode, 400, response.body);
        assert.match(String(response.headers['content-type']), /^application\/vnd\.api\+json/);
        const { errors } = response.json<{ errors: ErrorObject[] }>();
        for (const error of errors) {
          assert.equal(error.status, '400');
          assert.equal(error.code, 'INVALID_RESOURCE_DATA');
          assert.equal(error.title, 'Validation failed');
          assert.ok(error.detail.length > 0);
        }
        assert.deepEqual(errors.map((e) => e.source?.pointer).sort(), [...scenario.pointers].sort());
      });
    }

    it('creates a subscription with defaults and returns the secret once', async () => {
      const response = await post(VALID);
      assert.equal(response.statusCode, 201, response.body);
      const { data } = response.json<{
        data: { type: string; id: string; attributes: Record<string, unknown>; links: { self: string } };
      }>();
      assert.equal(data.type, 'webhooks');
      assert.match(data.id, /^[0-9a-f-]{36}$/);
      assert.equal(response.headers.location, `/admin/webhooks/${data.id}`);
      const { secret, createdAt, updatedAt, ...rest } = data.attributes;
      assert.match(String(secret), /^whsec_[A-Za-z0-9+/]+=*$/);
      assert.equal(Buffer.from(String(secret).slice(6), 'base64').length, 32);
      assert.match(String(createdAt), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(updatedAt, createdAt);
      assert.deepEqual(rest, { ...VALID, headers: null, enabled: true, retryConfig: null, fieldIds: null });

      const read = await t.request({ method: 'GET', url: `/admin/webhooks/${data.id}`, auth: t.admin });
      assert.equal(read.statusCode, 200);
      assert.equal('secret' in read.json<{ data: { attributes: object } }>().data.attributes, false);
      const list = await t.request({ method: 'GET', url: '/admin/webhooks', auth: t.admin });
      assert.equal(list.body.includes(String(secret)), false);
      const patched = await t.request({
        method: 'PATCH',
        url: `/admin/webhooks/${data.id}`,
        auth: t.admin,
        payload: { name: 'renamed' },
      });
      assert.equal(patched.body.includes('secret'), false);
    });

    it('fills missing retry settings with the defaults and keeps headers and fieldIds', async () => {
      const body = {
        ...VALID,
        enabled: false,
        headers: { 'X-Tenant': 'acme' },
        retryConfig: { maxAttempts: 3, initialDelayMs: 250 },
        fieldIds: ['posts.title'],
      };
      const response = await post(body);
      assert.equal(response.statusCode, 201, response.body);
      const { attributes } = response.json<{ data: { attributes: Record<string, unknown> } }>().data;
      assert.deepEqual(attributes.retryConfig, {
        maxAttempts: 3,
        backoffMultiplier: 2,
        initialDelayMs: 250,
        maxDelayMs: 300000,
      });
      assert.deepEqual(attributes.headers, { 'X-Tenant': 'acme' });
      assert.deepEqual(attributes.fieldIds, ['posts.title']);
      assert.equal(attributes.enabled, false);
    });

    it('updates only the given fields, validates them, and bumps updatedAt', async () => {
      const { id } = await t.createWebhook({ ...VALID, retryConfig: { maxAttempts: 2 } });
      const before = (await t.request({ method: 'GET', url: `/admin/webhooks/${id}`, auth: t.admin })).json<{
        data: { attributes: Record<string, unknown> };
      }>().data.attributes;
      await new Promise((resolve) => setTimeout(resolve, 5));
      const response = await t.request({
        method: 'PATCH',
        url: `/admin/webhooks/${id}`,
        auth: t.admin,
        payload: { enabled: false, eventPattern: '*.deleted', retryConfig: null },
      });
      assert.equal(response.statusCode, 200, response.body);
      const { attributes } = response.json<{ data: { attributes: Record<string, unknown> } }>().data;
      assert.equal(attributes.enabled, false);
      assert.equal(attributes.eventPattern, '*.deleted');
      assert.equal(attributes.retryConfig, null);
      assert.equal(attributes.name, VALID.name);
      assert.equal(attributes.createdAt, before.createdAt);
      assert.ok(String(attributes.updatedAt) > String(before.updatedAt));

      const invalid = await t.request({
        method: 'PATCH',
        url: `/admin/webhooks/${id}`,
        auth: t.admin,
        payload: { url: 'nope', name: null, colour: 'red' },
      });
      assert.equal(invalid.statusCode, 400);
      assert.deepEqual(
        invalid
          .json<{ errors: ErrorObject[] }>()
          .errors.map((e) => e.source?.pointer)
          .sort(),
        [at('colour'), at('name'), at('url')],
      );
    });

    it('deletes a subscription: 204, then 404', async () => {
      const { id } = await t.createWebhook(VALID);
      assert.equal(
        (await t.request({ method: 'DELETE', url: `/admin/webhooks/${id}`, auth: t.admin })).statusCode,
        204,
      );
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const response = await t.request({
          method,
          url: `/admin/webhooks/${id}`,
          auth: t.admin,
          ...(method === 'PATCH' ? { payload: { name: 'x' } } : {}),
        });
        assert.equal(response.statusCode, 404, `${method} ${response.body}`);
        assert.equal(response.json<{ errors: ErrorObject[] }>().errors[0]?.code, 'RESOURCE_NOT_FOUND');
      }
    });

    it('answers 404 RESOURCE_NOT_FOUND for ids that are not subscriptions', async () => {
      for (const url of [
        '/admin/webhooks/not-a-uuid',
        '/admin/webhooks/00000000-0000-7000-8000-000000000000',
        '/admin/webhooks/00000000-0000-7000-8000-000000000000/deliveries',
      ]) {
        const response = await t.request({ method: 'GET', url, auth: t.admin });
        assert.equal(response.statusCode, 404, url);
        assert.equal(response.json<{ errors: ErrorObject[] }>().errors[0]?.code, 'RESOURCE_NOT_FOUND');
      }
    });

    it('pages the list with _limit and _offset and counts every subscription in meta.total', async () => {
      for (let i = 0; i < 3; i++) await t.createWebhook({ ...VALID, name: `paged ${i}` });
      const all = (await t.request({ method: 'GET', url: '/admin/webhooks?_limit=1000', auth: t.admin })).json<{
        data: { id: string }[];
        meta: { total: number };
      }>();
      assert.equal(all.meta.total, all.data.length);
      const page = await t.request({ method: 'GET', url: '/admin/webhooks?_limit=2&_offset=1', auth: t.admin });
      assert.equal(page.statusCode, 200);
      const body = page.json<{
        data: { id: string; type: string }[];
        meta: { total: number };
        links: Record<string, string>;
      }>();
      assert.equal(body.meta.total, all.meta.total);
      assert.deepEqual(
        body.data.map((d) => d.id),
        all.data.slice(1, 3).map((d) => d.id),
      );
      assert.ok(body.data.every((d) => d.type === 'webhooks'));
      assert.equal(body.links.self, '/admin/webhooks?page[offset]=1&page[limit]=2');
      assert.equal(body.links.prev, '/admin/webhooks?page[offset]=0&page[limit]=2');
    });

    const badQueries: [url: string, parameter: string][] = [
      ['/admin/webhooks?_limit=0', '_limit'],
      ['/admin/webhooks?_limit=1001', '_limit'],
      ['/admin/webhooks?_offset=-1', '_offset'],
      ['/admin/webhooks?sort=name', 'sort'],
    ];
    for (const [url, parameter] of badQueries) {
      it(`answers 400 INVALID_QUERY_PARAMS for ${url}`, async () => {
        const response = await t.request({ method: 'GET', url, auth: t.admin });
        assert.equal(response.statusCode, 400);
        const [error] = response.json<{ errors: ErrorObject[] }>().errors;
        assert.equal(error?.code, 'INVALID_QUERY_PARAMS');
        assert.equal(error?.source?.parameter, parameter);
      });
    }

    it('answers 400 INVALID_QUERY_PARAMS for an unknown delivery status', async () => {
      const { id } = await t.createWebhook(VALID);
      const response = await t.request({
        method: 'GET',
        url: `/admin/webhooks/${id}/deliveries?status=done`,
        auth: t.admin,
      });
      assert.equal(response.statusCode, 400);
      assert.equal(response.json<{ errors: ErrorObject[] }>().errors[0]?.source?.parameter, 'status');
    });

    it('requires the admin token: 401 without credentials, 403 FORBIDDEN for a user key', async () => {
      const anonymous = await t.request({ method: 'GET', url: '/admin/webhooks' });
      assert.equal(anonymous.statusCode, 401);
      assert.equal(anonymous.json<{ errors: ErrorObject[] }>().errors[0]?.code, 'UNAUTHORIZED');
      const user = await t.request({
        method: 'POST',
        url: '/admin/webhooks',
        auth: await t.as('editor'),
        payload: VALID,
      });
      assert.equal(user.statusCode, 403);
      assert.equal(user.json<{ errors: ErrorObject[] }>().errors[0]?.code, 'FORBIDDEN');
    });
  });
}
