// The pieces of idempotent requests that need no server: the header's syntax, the request fingerprint,
// and the seal POST /token's answers are kept in.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/errors/api-error.ts';
import { idempotencyKeyOf } from '../../src/idempotency/idempotency-key-header.ts';
import { canonicalJson, requestFingerprint } from '../../src/idempotency/request-fingerprint.ts';
import { seal, unseal } from '../../src/idempotency/sealed-answer.ts';

describe('the Idempotency-Key header', () => {
  it('is absent, or 1 to 255 visible ASCII characters', () => {
    assert.equal(idempotencyKeyOf({}), undefined);
    assert.equal(idempotencyKeyOf({ 'idempotency-key': 'a' }), 'a');
    assert.equal(idempotencyKeyOf({ 'idempotency-key': '!~'.repeat(127) + '!' }), '!~'.repeat(127) + '!');
    for (const bad of ['', ' ', 'a b', 'ü', 'x'.repeat(256), '\u0000', ['a', 'b']]) {
      assert.throws(
        () => idempotencyKeyOf({ 'idempotency-key': bad }),
        (error: unknown) =>
          error instanceof ApiError &&
          error.code === 'INVALID_IDEMPOTENCY_KEY' &&
          error.issues[0]?.parameter === 'Idempotency-Key',
        JSON.stringify(bad),
      );
    }
  });
});

describe('the request fingerprint', () => {
  it('ignores the order of object members but not of array items, and tells values apart', () => {
    assert.equal(canonicalJson({ b: 1, a: [2, { d: null, c: 'x' }] }), '{"a":[2,{"c":"x","d":null}],"b":1}');
    assert.equal(requestFingerprint([{ a: 1, b: 2 }]), requestFingerprint([{ b: 2, a: 1 }]));
    assert.notEqual(requestFingerprint([[1, 2]]), requestFingerprint([[2, 1]]));
    assert.notEqual(requestFingerprint([{ a: '1' }]), requestFingerprint([{ a: 1 }]));
    assert.notEqual(requestFingerprint(['POST', '/v1/a', { x: 1 }]), requestFingerprint(['POST', '/v1/b', { x: 1 }]));
    assert.match(requestFingerprint([null]), /^[0-9a-f]{64}$/);
  });
});

describe('a sealed answer', () => {
  it('opens with the same password and context only, and shows nothing of the plain text', async () => {
    const plain = '{"key":"svc_secret-value"}';
    const sealed = await seal(plain, 'pass word', 'caller\nfingerprint');
    assert.ok(!sealed.includes('secret'));
    assert.notEqual(
      await seal(plain, 'pass word', 'caller\nfingerprint'),
      sealed,
      'a salt and iv of its own each time',
    );
    assert.equal(await unseal(sealed, 'pass word', 'caller\nfingerprint'), plain);
    assert.equal(await unseal(sealed, 'other word', 'caller\nfingerprint'), undefined);
    assert.equal(await unseal(sealed, 'pass word', 'caller\nother'), undefined);
    assert.equal(await unseal('v1.short', 'pass word', 'caller\nfingerprint'), undefined);
    assert.equal(await unseal('v0.whatever', 'pass word', 'caller\nfingerprint'), undefined);
  });
});
