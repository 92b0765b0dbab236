import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isPrivateAddress, privateHostProblem } from '../../src/webhooks/targets/private-address.ts';
import { guardedLookup, PrivateTargetError } from '../../src/webhooks/targets/guarded-lookup.ts';
import { createDeliveryAgent, createSendClock, sendWebhook } from '../../src/webhooks/delivery/send-webhook.ts';
import { startReceiver } from './fixtures/receiver.ts';

describe('isPrivateAddress', () => {
  const table: [address: string, isPrivate: boolean][] = [
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['255.255.255.255', true],
    ['8.8.8.8', false],
    ['93.184.216.34', false],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd12:3456::1', true],
    ['ff02::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:8.8.8.8', false],
    ['64:ff9b::7f00:1', true],
    ['2606:4700:4700::1111', false],
    // Documentation, benchmarking and relay ranges: never a real receiver.
    ['192.0.2.10', true],
    ['198.51.100.7', true],
    ['203.0.113.200', true],
    ['198.19.0.1', true],
    ['192.88.99.1', true],
    ['2001:db8::1', true],
    ['100::1', true],
    // IPv4-compatible (::/96, deprecated): refused whole, whatever IPv4 address it carries.
    ['::127.0.0.1', true],
    ['::7f00:1', true],
    ['::a00:1', true],
    ['::8.8.8.8', true],
    ['::0.0.0.0', true],
    // 6to4 (2002::/16): judged by the IPv4 address in bits 16-47.
    ['2002:7f00:1::', true],
    ['2002:7f00:0001:0:0:0:0:1', true],
    ['2002:a00:1::1', true],
    ['2002:c0a8:101::', true],
    ['2002:a9fe:a9fe::', true],
    ['2002::', true],
    ['2002:808:808::1', false],
    // NAT64 well-known prefix (64:ff9b::/96): judged by the last 32 bits.
    ['64:ff9b::127.0.0.1', true],
    ['64:ff9b::a9fe:a9fe', true],
    ['64:ff9b::8.8.8.8', false],
    ['64:ff9b::808:808', false],
    // Local-use NAT64 (64:ff9b:1::/48) and Teredo (2001::/32): refused whole.
    ['64:ff9b:1::8.8.8.8', true],
    ['64:ff9b:1:ffff::1', true],
    ['2001::1', true],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', true],
    ['2001:4860:4860::8888', false],
    // IPv4-translated (::ffff:0:0:0/96): judged by the last 32 bits, like the mapped form.
    ['::ffff:0:127.0.0.1', true],
    ['::ffff:0:7f00:1', true],
    ['::ffff:0:8.8.8.8', false],
    ['::ffff:a9fe:a9fe', true],
    ['not-an-ip', false],
  ];
  for (const [address, isPrivate] of table) {
    it(`${address} is ${isPrivate ? '' : 'not '}private`, () => assert.equal(isPrivateAddress(address), isPrivate));
  }
});

describe('privateHostProblem', () => {
  it('refuses loopback names and private literals as URL hostnames give them', () => {
    for (const url of [
      'http://localhost/',
      'http://api.localhost/',
      'http://127.0.0.1/',
      'http://[::1]/',
      'http://0x7f.1/',
      'http://2130706433/',
      'http://[::ffff:10.0.0.1]/',
      'http://[::127.0.0.1]:4001/',
      'http://[2002:7f00:1::]/',
      'http://[64:ff9b::127.0.0.1]/',
      'http://[::]/',
      'http://0.0.0.0/',
    ]) {
      assert.notEqual(privateHostProblem(new URL(url).hostname), null, url);
    }
  });

  it('leaves names to the delivery-time lookup', () => {
    assert.equal(privateHostProblem('example.com'), null);
    assert.equal(privateHostProblem('8.8.8.8'), null);
  });
});

describe('guardedLookup', () => {
  const lookup = (hostname: string, all: boolean) =>
    new Promise<{ error: Error | null; address: unknown }>((resolve) => {
      guardedLookup(hostname, { all }, (error, address) => resolve({ error, address }));
    });

  it('refuses a name that resolves to a loopback address (DNS rebinding)', async () => {
    for (const all of [false, true]) {
      const { error } = await lookup('localhost', all);
      assert.ok(error instanceof PrivateTargetError, String(error));
      assert.match(error.message, /localhost resolves to .*private/);
    }
  });

  it('refuses an answer carrying a loopback IPv4 address inside IPv6', async () => {
    // A literal resolves to itself: the same path as a DNS answer with that address.
    for (const address of ['::127.0.0.1', '::7f00:1', '2002:7f00:1::', '64:ff9b::7f00:1']) {
      const { error } = await lookup(address, false);
      assert.ok(error instanceof PrivateTargetError, `${address}: ${String(error)}`);
    }
  });
});

describe('sendWebhook to IPv4 loopback inside IPv6', () => {
  it('refuses without connecting, and does not retry', async (ctx) => {
    const receiver = await startReceiver();
    const agent = createDeliveryAgent({ connectionsPerTarget: 1, allowPrivateTargets: false });
    ctx.after(async () => {
      await agent.close();
      await receiver.close();
    });
    for (const host of ['[::127.0.0.1]', '[::7f00:1]', '[2002:7f00:1::]']) {
      const result = await sendWebhook(
        { url: `http://${host}:${receiver.port}/hook`, headers: {}, body: '{}' },
        { clock: createSendClock(2000), allowPrivateTargets: false, agent },
      );
      assert.deepEqual(
        result.kind === 'error' && [result.retryable, /private targets are not allowed/.test(result.message)],
        [false, true],
        host,
      );
    }
    assert.equal(receiver.requests.length, 0);
  });
});
