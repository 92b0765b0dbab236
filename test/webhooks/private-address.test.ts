import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isPrivateAddress, privateHostProblem } from '../../src/webhooks/private-address.ts';
import { guardedLookup, PrivateTargetError } from '../../src/webhooks/guarded-lookup.ts';

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
    ['not-an-ip', false],
  ];
  for (const [address, isPrivate] of table) {
    it(`${address} is ${isPrivate ? '' : 'not '}private`, () => assert.equal(isPrivateAddress(address), isPrivate));
  }
});

describe('privateHostProblem', () => {
  it('refuses loopback names and private literals as URL hostnames give them', () => {
    for (const url of ['http://localhost/', 'http://api.localhost/', 'http://127.0.0.1/', 'http://[::1]/', 'http://0x7f.1/', 'http://2130706433/', 'http://[::ffff:10.0.0.1]/']) {
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
});
