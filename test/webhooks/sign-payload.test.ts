import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { generateWebhookSecret, signPayload } from '../../src/webhooks/delivery/sign-payload.ts';

describe('signPayload', () => {
  it('reproduces the Standard Webhooks reference test vector', () => {
    const signature = signPayload(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    assert.equal(signature, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('signs with the base64-decoded bytes after the whsec_ prefix', () => {
    const secret = generateWebhookSecret();
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update('evt.1700000000.{"a":1}').digest('base64');
    assert.equal(signPayload(secret, 'evt', 1700000000, '{"a":1}'), `v1,${expected}`);
  });
});

describe('generateWebhookSecret', () => {
  it('makes distinct whsec_ secrets of 32 random bytes', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    assert.match(a, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.equal(Buffer.from(a.slice(6), 'base64').length, 32);
    assert.notEqual(a, b);
  });
});
