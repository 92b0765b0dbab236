// Without allowPrivateTargets, private, loopback and link-local targets are refused: literal hosts when
// a subscription is written, and names resolving to such addresses when a delivery connects.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { isPrivateAddress } from '../../src/webhooks/targets/private-address.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { startReceiver } from './fixtures/receiver.ts';
import { startWebhookTestApp, type WebhookTestApp } from './fixtures/webhook-test-app.ts';

const REFUSED = [
  'http://127.0.0.1:8080/hook',
  'http://localhost/hook',
  'https://api.localhost/hook',
  'http://[::1]/hook',
  'http://10.0.0.5/hook',
  'http://172.20.1.1/hook',
  'http://192.168.1.10/hook',
  'http://169.254.169.254/latest/meta-data',
  'http://[fe80::1]/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://0.0.0.0/hook',
  'http://2130706433/hook',
  'http://[::127.0.0.1]:4001/',
  'http://[::7f00:1]/hook',
  'http://[2002:7f00:1::]/',
  'http://[2002:a9fe:a9fe::]/latest/meta-data',
  'http://[64:ff9b::127.0.0.1]/hook',
  'http://[64:ff9b:1::a00:1]/hook',
  'http://[2001::1]/hook',
  'http://[::]/hook',
  'http://[::ffff:0:127.0.0.1]/hook',
];

/** A name of this machine that resolves only to private addresses, if there is one. */
async function privateName(): Promise<string | undefined> {
  const name = hostname();
  try {
    const addresses = await lookup(name, { all: true });
    return addresses.length > 0 && addresses.every((a) => isPrivateAddress(a.address)) && !name.endsWith('localhost')
      ? name
      : undefined;
  } catch {
    return undefined;
  }
}

for (const dialect of testDialects()) {
  describe(`private webhook targets (${dialect})`, () => {
    let t: WebhookTestApp;
    before(async () => {
      t = await startWebhookTestApp(dialect, { allowPrivateTargets: false });
    });
    after(async () => {
      await t.close();
    });

    for (const url of REFUSED) {
      it(`refuses ${url} with 400 pointing at url`, async () => {
        const response = await t.request({
          method: 'POST',
          url: '/admin/webhooks',
          auth: t.admin,
          payload: { name: 'internal', url, eventPattern: '*' },
        });
        assert.equal(response.statusCode, 400, response.body);
        const { errors } = response.json<{ errors: { code: string; detail: string; source: { pointer: string } }[] }>();
        assert.deepEqual(
          errors.map((e) => [e.code, e.source.pointer]),
          [['INVALID_RESOURCE_DATA', '/data/attributes/url']],
        );
        assert.match(errors[0]?.detail ?? '', /private|loopback/);
        assert.match(
          errors[0]?.detail ?? '',
          /webhooks\.allowPrivateTargets: true/,
          'names the setting that allows it',
        );
      });
    }

    it('accepts a public target, and refuses a private url on update too', async () => {
      const { id } = await t.createWebhook({ name: 'public', url: 'https://hooks.example.com/in', eventPattern: '*' });
      for (const url of ['http://10.1.1.1/', 'http://[::127.0.0.1]:4001/', 'http://[2002:7f00:1::]/']) {
        const response = await t.request({
          method: 'PATCH',
          url: `/admin/webhooks/${id}`,
          auth: t.admin,
          payload: { url },
        });
        assert.equal(response.statusCode, 400, url);
        assert.equal(
          response.json<{ errors: { source: { pointer: string } }[] }>().errors[0]?.source.pointer,
          '/data/attributes/url',
        );
      }
      await t.request({ method: 'DELETE', url: `/admin/webhooks/${id}`, auth: t.admin });
    });

    it('refuses to connect when the name resolves to a private address, without retrying', async (ctx) => {
      const name = await privateName();
      if (!name) {
        ctx.skip(`${hostname()} does not resolve to private addresses only here`);
        return;
      }
      const receiver = await startReceiver();
      const { id } = await t.createWebhook({
        name: 'rebinding',
        url: `http://${name}:${receiver.port}/hook`,
        eventPattern: 'posts.created',
        retryConfig: { maxAttempts: 3, initialDelayMs: 100 },
      });
      ctx.after(async () => {
        await t.request({ method: 'DELETE', url: `/admin/webhooks/${id}`, auth: t.admin });
        await receiver.close();
      });
      await t.createPost({ title: 'must not leave' });
      const [record, ...others] = await t.waitForDeliveries(id, (d) => d[0]?.status === 'failed');
      assert.match(record?.error ?? '', new RegExp(`${name} resolves to .*private`));
      assert.equal(record?.httpStatus, null);
      assert.equal(record?.nextRetryAt, null);
      assert.deepEqual(others, []);
      assert.equal(receiver.requests.length, 0);
    });
  });
}
