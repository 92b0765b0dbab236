import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { targetHostOf } from '../../src/webhooks/delivery/delivery-repository.ts';
import { targetUrlOf } from '../../src/webhooks/targets/target-url.ts';

describe('targetUrlOf', () => {
  it('splits a url into what a send needs, with the default port filled in for the per-target key', () => {
    assert.deepEqual(targetUrlOf('https://Hooks.Example.com/in/svc?tenant=a%20b'), {
      origin: 'https://hooks.example.com',
      path: '/in/svc?tenant=a%20b',
      hostname: 'hooks.example.com',
      hostPort: 'hooks.example.com:443',
    });
    assert.equal(targetUrlOf('http://example.com').hostPort, 'example.com:80');
    assert.equal(targetUrlOf('http://example.com').path, '/');
  });

  it('keeps an explicit port and an IPv6 literal as URL writes them', () => {
    const target = targetUrlOf('http://[::1]:8080/hook');
    assert.equal(target.origin, 'http://[::1]:8080');
    assert.equal(target.hostname, '[::1]');
    assert.equal(targetHostOf('http://[::1]:8080/hook'), '[::1]:8080');
  });

  it('parses a url once', () => {
    assert.equal(targetUrlOf('http://127.0.0.1:9/once'), targetUrlOf('http://127.0.0.1:9/once'));
  });
});
