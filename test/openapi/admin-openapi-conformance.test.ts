// The admin part of /openapi.json is true: every admin endpoint is called on a real app, and each answer's
// status must be declared for that operation and its body must match the schema declared for that status.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { startReceiver, type Receiver } from '../webhooks/fixtures/receiver.ts';
import { WEBHOOK_TEST_RESOURCES, WEBHOOK_TEST_SETTINGS } from '../webhooks/fixtures/webhook-test-app.ts';
import { ResponseConformance } from './response-conformance.ts';

type Json = Record<string, unknown>;

const JSON_API = 'application/vnd.api+json';
const MISSING = '00000000-0000-7000-8000-000000000000';

for (const dialect of testDialects()) {
  describe(`admin endpoints answer as /openapi.json describes them (${dialect})`, () => {
    let t: TestApp;
    let receiver: Receiver;
    let spec: ResponseConformance;
    before(async () => {
      // posts with soft delete, so /admin/resources/{name}/deleted has something to show.
      const resources = {
        ...WEBHOOK_TEST_RESOURCES,
        posts: { ...WEBHOOK_TEST_RESOURCES.posts!, enableSoftDelete: true },
      };
      t = await startTestApp(dialect, { resources, webhooks: WEBHOOK_TEST_SETTINGS });
      receiver = await startReceiver();
      const served = await t.request({ method: 'GET', url: '/openapi.json' });
      assert.equal(served.statusCode, 200);
      spec = new ResponseConformance(served.json<Json>());
    });
    after(async () => {
      await receiver.close();
      await t.close();
    });

    const call = (
      method: string,
      template: string,
      url: string,
      options: { payload?: unknown; auth?: string | null; headers?: Record<string, string> } = {},
    ) =>
      t
        .request({
          method: method as 'GET',
          url,
          ...(options.auth === null ? {} : { auth: options.auth ?? t.admin }),
          ...(options.payload !== undefined ? { payload: options.payload as object } : {}),
          ...(options.headers ? { headers: options.headers } : {}),
        })
        .then((response) => ({ response, body: spec.check(method, template, response) as Json | undefined }));

    /** Polls the delivery records (bounded: 100 tries, 10 s) until every one is sent successfully. */
    async function waitForSent(webhookId: string): Promise<string[]> {
      const deadline = Date.now() + 10_000;
      for (let attempt = 0; attempt < 100 && Date.now() < deadline; attempt++) {
        const { body } = await call(
          'GET',
          '/admin/webhooks/{id}/deliveries',
          `/admin/webhooks/${webhookId}/deliveries?status=success`,
        );
        const data = body!.data as Json[];
        if (data.length > 0) return data.map((d) => d.id as string);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('no successful delivery within 10 s');
    }

    it('webhooks: create, list, read, change, deliveries, test, retry, delete', async () => {
      const created = await call('POST', '/admin/webhooks', '/admin/webhooks', {
        payload: {
          name: 'hook',
          url: receiver.url('/in'),
          eventPattern: 'posts.*',
          headers: { 'X-Tenant': 'acme' },
          retryConfig: { maxAttempts: 2 },
          fieldIds: ['custom.note'],
        },
      });
      assert.equal(created.response.statusCode, 201);
      const data = created.body!.data as Json;
      assert.equal(typeof (data.attributes as Json).secret, 'string');
      const id = data.id as string;
      const one = `/admin/webhooks/${id}`;

      assert.equal(
        (await call('POST', '/admin/webhooks', '/admin/webhooks', { payload: { name: '' } })).response.statusCode,
        400,
      );
      assert.equal(
        (
          await call('POST', '/admin/webhooks', '/admin/webhooks', {
            payload: '{"name":',
            headers: { 'content-type': 'application/json' },
          })
        ).response.statusCode,
        400,
      );
      assert.equal(
        (
          await call('POST', '/admin/webhooks', '/admin/webhooks', {
            payload: 'name=x',
            headers: { 'content-type': 'text/plain' },
          })
        ).response.statusCode,
        415,
      );
      const huge = { name: 'x'.repeat(1_100_000), url: receiver.url('/in'), eventPattern: '*' };
      assert.equal(
        (await call('POST', '/admin/webhooks', '/admin/webhooks', { payload: huge })).response.statusCode,
        413,
      );

      const listed = await call('GET', '/admin/webhooks', '/admin/webhooks?_limit=1');
      assert.equal(listed.response.statusCode, 200);
      assert.equal((listed.body!.data as Json[]).length, 1);
      assert.equal((await call('GET', '/admin/webhooks', '/admin/webhooks?_limit=0')).response.statusCode, 400);
      assert.equal((await call('GET', '/admin/webhooks', '/admin/webhooks', { auth: null })).response.statusCode, 401);
      assert.equal(
        (await call('GET', '/admin/webhooks', '/admin/webhooks', { auth: 'Bearer svc_unknown' })).response.statusCode,
        401,
      );
      assert.equal(
        (await call('GET', '/admin/webhooks', '/admin/webhooks', { auth: await t.as('editor') })).response.statusCode,
        403,
      );
      assert.equal(
        (await call('GET', '/admin/webhooks', '/admin/webhooks', { headers: { accept: `${JSON_API}; ext=x` } }))
          .response.statusCode,
        406,
      );

      assert.equal((await call('GET', '/admin/webhooks/{id}', one)).response.statusCode, 200);
      assert.equal((await call('GET', '/admin/webhooks/{id}', `/admin/webhooks/${MISSING}`)).response.statusCode, 404);
      assert.equal(
        (
          await call('PATCH', '/admin/webhooks/{id}', one, {
            payload: { name: 'renamed', headers: null, retryConfig: null, fieldIds: null },
          })
        ).response.statusCode,
        200,
      );
      assert.equal(
        (await call('PATCH', '/admin/webhooks/{id}', one, { payload: { enabled: 'yes' } })).response.statusCode,
        400,
      );

      const tested = await call('POST', '/admin/webhooks/{id}/test', `${one}/test`);
      assert.equal(tested.response.statusCode, 202);
      const [deliveryId] = await waitForSent(id);
      const delivery = `${one}/deliveries/${deliveryId!}`;
      assert.equal(
        (await call('GET', '/admin/webhooks/{id}/deliveries', `${one}/deliveries?_limit=10&_offset=0`)).response
          .statusCode,
        200,
      );
      assert.equal(
        (await call('GET', '/admin/webhooks/{id}/deliveries', `${one}/deliveries?status=lost`)).response.statusCode,
        400,
      );
      assert.equal(
        (await call('GET', '/admin/webhooks/{id}/deliveries', `/admin/webhooks/${MISSING}/deliveries`)).response
          .statusCode,
        404,
      );
      assert.equal(
        (await call('GET', '/admin/webhooks/{id}/deliveries/{deliveryId}', delivery)).response.statusCode,
        200,
      );
      assert.equal(
        (await call('GET', '/admin/webhooks/{id}/deliveries/{deliveryId}', `${one}/deliveries/${MISSING}`)).response
          .statusCode,
        404,
      );
      assert.equal(
        (await call('POST', '/admin/webhooks/{id}/deliveries/{deliveryId}/retry', `${delivery}/retry`)).response
          .statusCode,
        202,
      );
      assert.equal(
        (await call('POST', '/admin/webhooks/{id}/deliveries/{deliveryId}/retry', `${one}/deliveries/${MISSING}/retry`))
          .response.statusCode,
        404,
      );

      assert.equal(
        (await call('PATCH', '/admin/webhooks/{id}', one, { payload: { enabled: false } })).response.statusCode,
        200,
      );
      assert.equal((await call('POST', '/admin/webhooks/{id}/test', `${one}/test`)).response.statusCode, 409);
      assert.equal(
        (await call('POST', '/admin/webhooks/{id}/deliveries/{deliveryId}/retry', `${delivery}/retry`)).response
          .statusCode,
        409,
      );

      assert.equal((await call('DELETE', '/admin/webhooks/{id}', one)).response.statusCode, 204);
      assert.equal((await call('DELETE', '/admin/webhooks/{id}', one)).response.statusCode, 404);
    });

    it('users and API keys: list, filter, read, change, delete', async () => {
      await t.as('editor', 'openapi-user');
      const users = await call('GET', '/admin/users', '/admin/users?_limit=50');
      assert.equal(users.response.statusCode, 200);
      const user = (users.body!.data as Json[]).find((u) => u.id === 'openapi-user');
      assert.ok(user, 'the test user is listed');
      const email = (user.attributes as Json).email as string;
      const byEmail = await call('GET', '/admin/users', `/admin/users?email=${encodeURIComponent(email)}`);
      assert.equal((byEmail.body!.data as Json[]).length, 1);
      assert.equal((await call('GET', '/admin/users', '/admin/users?_offset=-1')).response.statusCode, 400);
      const userUrl = '/admin/users/openapi-user';
      assert.equal((await call('GET', '/admin/users/{id}', userUrl)).response.statusCode, 200);
      assert.equal((await call('GET', '/admin/users/{id}', '/admin/users/nobody')).response.statusCode, 404);
      const changed = await call('PATCH', '/admin/users/{id}', userUrl, {
        payload: { primaryRole: 'editor', allowedRoles: ['editor', 'author'] },
      });
      assert.equal(changed.response.statusCode, 200);
      assert.equal(
        (await call('PATCH', '/admin/users/{id}', userUrl, { payload: { allowedRoles: '["author"]' } })).response
          .statusCode,
        200,
      );
      assert.equal(
        (await call('PATCH', '/admin/users/{id}', userUrl, { payload: { primaryRole: '' } })).response.statusCode,
        400,
      );
      assert.equal(
        (await call('PATCH', '/admin/users/{id}', userUrl, { payload: { allowedRoles: ['no-such-role'] } })).response
          .statusCode,
        400,
      );
      assert.equal(
        (await call('PATCH', '/admin/users/{id}', '/admin/users/nobody', { payload: { primaryRole: 'editor' } }))
          .response.statusCode,
        404,
      );

      const keys = await call('GET', '/admin/keys', '/admin/keys?userId=openapi-user');
      assert.equal(keys.response.statusCode, 200);
      const [key] = keys.body!.data as Json[];
      assert.ok(key, "the test user's key is listed");
      assert.equal((await call('GET', '/admin/keys', '/admin/keys?_limit=5000')).response.statusCode, 400);
      const keyUrl = `/admin/keys/${key.id as string}`;
      assert.equal((await call('GET', '/admin/keys/{id}', keyUrl)).response.statusCode, 200);
      assert.equal((await call('GET', '/admin/keys/{id}', '/admin/keys/nothing')).response.statusCode, 404);
      const settings = {
        name: 'ci',
        enabled: true,
        permissions: { posts: { read: ['*'], create: ['title'] } },
        metadata: { team: 'web' },
        expiresAt: '2099-01-01T00:00:00.000Z',
        rateLimitEnabled: true,
        rateLimitMax: 100,
        rateLimitTimeWindow: 60_000,
        refillInterval: 3_600_000,
        refillAmount: 1000,
        remaining: 1000,
      };
      assert.equal((await call('PATCH', '/admin/keys/{id}', keyUrl, { payload: settings })).response.statusCode, 200);
      assert.equal(
        (
          await call('PATCH', '/admin/keys/{id}', keyUrl, {
            payload: { permissions: null, expiresAt: null, remaining: null },
          })
        ).response.statusCode,
        200,
      );
      assert.equal(
        (await call('PATCH', '/admin/keys/{id}', keyUrl, { payload: { permissions: { nowhere: { read: ['*'] } } } }))
          .response.statusCode,
        400,
      );
      assert.equal(
        (await call('PATCH', '/admin/keys/{id}', keyUrl, { payload: { rateLimitMax: 0 } })).response.statusCode,
        400,
      );
      assert.equal((await call('DELETE', '/admin/keys/{id}', keyUrl)).response.statusCode, 204);
      assert.equal((await call('DELETE', '/admin/keys/{id}', keyUrl)).response.statusCode, 404);
      assert.equal((await call('DELETE', '/admin/users/{id}', userUrl)).response.statusCode, 204);
      assert.equal((await call('DELETE', '/admin/users/{id}', userUrl)).response.statusCode, 404);
    });

    it('/me for a key holder and for the admin token, and /admin/reload without a config file', async () => {
      const key = await t.as('editor');
      assert.equal((await call('GET', '/me', '/me', { auth: key })).response.statusCode, 200);
      assert.equal((await call('GET', '/me', '/me')).response.statusCode, 200);
      assert.equal((await call('GET', '/me', '/me', { auth: null })).response.statusCode, 401);
      const revoking = await t.as('editor', 'openapi-revoker');
      assert.equal((await call('DELETE', '/me/key', '/me/key', { auth: revoking })).response.statusCode, 204);
      assert.equal((await call('DELETE', '/me/key', '/me/key', { auth: revoking })).response.statusCode, 401);
      assert.equal((await call('DELETE', '/me/key', '/me/key')).response.statusCode, 403);
      assert.equal((await call('GET', '/admin/roles', '/admin/roles')).response.statusCode, 200);
      const post = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: key,
        payload: { title: 'to be deleted' },
      });
      assert.equal(
        (await t.request({ method: 'DELETE', url: `/v1/posts/${post.json().data.id as string}`, auth: key }))
          .statusCode,
        204,
      );
      const deleted = await call('GET', '/admin/resources/{name}/deleted', '/admin/resources/posts/deleted');
      assert.equal((deleted.body!.data as Json[]).length, 1);
      assert.equal(
        (await call('GET', '/admin/resources/{name}/deleted', '/admin/resources/categories/deleted')).response
          .statusCode,
        404,
      );
      assert.equal(
        (await call('GET', '/admin/resources/{name}/deleted', '/admin/resources/posts/deleted?_limit=0')).response
          .statusCode,
        400,
      );
      assert.equal((await call('GET', '/admin/roles', '/admin/roles?x=1')).response.statusCode, 400);
      assert.equal((await call('GET', '/admin/roles', '/admin/roles', { auth: key })).response.statusCode, 403);
      // Built from a config object, this app has no file to read again.
      assert.equal((await call('POST', '/admin/reload', '/admin/reload')).response.statusCode, 409);
    });

    it('the console endpoints: create a user, search, send a reset link, console keys, restore, history', async () => {
      const created = await call('POST', '/admin/users', '/admin/users', {
        payload: { email: 'console-made@example.test', name: 'Console Made', password: 'a long enough password' },
      });
      assert.equal(created.response.statusCode, 201);
      assert.equal((created.body!.meta as Json).invitationSent, false);
      const madeId = (created.body!.data as Json).id as string;
      assert.equal(created.response.headers.location, `/admin/users/${madeId}`);
      assert.equal(
        (await call('POST', '/admin/users', '/admin/users', { payload: { email: 'console-made@example.test' } }))
          .response.statusCode,
        409,
      );
      assert.equal(
        (await call('POST', '/admin/users', '/admin/users', { payload: { email: 3 } })).response.statusCode,
        400,
      );
      const found = await call('GET', '/admin/users', '/admin/users?search=made');
      assert.deepEqual(
        (found.body!.data as Json[]).map((u) => u.id),
        [madeId],
      );
      assert.equal(
        (await call('GET', '/admin/users', `/admin/users?search=${'a'.repeat(101)}`)).response.statusCode,
        400,
      );
      const reset = await call('POST', '/admin/users/{id}/password-reset', `/admin/users/${madeId}/password-reset`);
      assert.equal(reset.response.statusCode, 202);
      assert.deepEqual(reset.body!.meta, { sentTo: 'console-made@example.test' });
      assert.equal(
        (await call('POST', '/admin/users/{id}/password-reset', '/admin/users/nobody/password-reset')).response
          .statusCode,
        404,
      );
      assert.equal(
        (
          await call('POST', '/admin/users/{id}/password-reset', `/admin/users/${madeId}/password-reset`, {
            payload: { email: 'elsewhere@example.test' },
          })
        ).response.statusCode,
        400,
      );
      assert.equal((await call('GET', '/admin/keys', '/admin/keys?includeConsole=true')).response.statusCode, 200);
      assert.equal((await call('GET', '/admin/keys', '/admin/keys?includeConsole=yes')).response.statusCode, 400);

      const key = await t.as('editor', 'openapi-restorer');
      const post = await t.request({ method: 'POST', url: '/v1/posts', auth: key, payload: { title: 'restore me' } });
      const postId = post.json().data.id as string;
      const history = `/v1/posts/${postId}/_history`;
      assert.equal(
        (await t.request({ method: 'PATCH', url: `/v1/posts/${postId}`, auth: key, payload: { title: 'again' } }))
          .statusCode,
        200,
      );
      const changes = await call('GET', '/v1/posts/{id}/_history', history, { auth: key });
      assert.equal(changes.response.statusCode, 200);
      assert.deepEqual(
        (changes.body!.data as Json[]).map((change) => (change.attributes as Json).kind),
        ['updated', 'created'],
      );
      assert.equal(
        (await call('GET', '/v1/posts/{id}/_history', `${history}?_limit=1000`, { auth: key })).response.statusCode,
        400,
      );
      assert.equal(
        (await call('GET', '/v1/posts/{id}/_history', `/v1/posts/${MISSING}/_history`, { auth: key })).response
          .statusCode,
        404,
      );
      assert.equal((await call('GET', '/v1/posts/{id}/_history', history, { auth: null })).response.statusCode, 401);
      assert.equal((await t.request({ method: 'DELETE', url: `/v1/posts/${postId}`, auth: key })).statusCode, 204);
      const restore = `/admin/resources/posts/deleted/${postId}/restore`;
      const restored = await call('POST', '/admin/resources/{name}/deleted/{id}/restore', restore);
      assert.equal(restored.response.statusCode, 200);
      assert.equal((restored.body!.data as Json).id, postId);
      assert.equal(
        (await call('POST', '/admin/resources/{name}/deleted/{id}/restore', restore)).response.statusCode,
        409,
      );
      assert.equal(
        (
          await call(
            'POST',
            '/admin/resources/{name}/deleted/{id}/restore',
            `/admin/resources/posts/deleted/${MISSING}/restore`,
          )
        ).response.statusCode,
        404,
      );
      assert.equal(
        (await call('POST', '/admin/resources/{name}/deleted/{id}/restore', restore, { auth: key })).response
          .statusCode,
        403,
      );
    });

    it('exercised the success answer of every admin operation', () => {
      const operations = [
        'POST /admin/webhooks 201',
        'GET /admin/webhooks 200',
        'GET /admin/webhooks/{id} 200',
        'PATCH /admin/webhooks/{id} 200',
        'DELETE /admin/webhooks/{id} 204',
        'GET /admin/webhooks/{id}/deliveries 200',
        'GET /admin/webhooks/{id}/deliveries/{deliveryId} 200',
        'POST /admin/webhooks/{id}/deliveries/{deliveryId}/retry 202',
        'POST /admin/webhooks/{id}/test 202',
        'GET /admin/users 200',
        'GET /admin/users/{id} 200',
        'PATCH /admin/users/{id} 200',
        'DELETE /admin/users/{id} 204',
        'GET /admin/keys 200',
        'GET /admin/keys/{id} 200',
        'PATCH /admin/keys/{id} 200',
        'DELETE /admin/keys/{id} 204',
        'GET /admin/roles 200',
        'DELETE /me/key 204',
        'GET /admin/resources/{name}/deleted 200',
        'POST /admin/resources/{name}/deleted/{id}/restore 200',
        'POST /admin/users 201',
        'POST /admin/users/{id}/password-reset 202',
        'GET /v1/posts/{id}/_history 200',
      ];
      for (const operation of operations) assert.ok(spec.seen.has(operation), operation);
    });
  });
}
