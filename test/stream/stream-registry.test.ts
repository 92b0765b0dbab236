// StreamRegistry on its own: places per key and per node, which change ends which streams, the re-check
// of a stream whose authentication may have raced a change, and a revocation before the connection exists.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AdminPrincipal, KeyPrincipal } from '../../src/model/principal.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { StreamRegistry, type RevokeReason, type StreamSlot } from '../../src/stream/stream-registry.ts';
import { compileResource } from '../../src/resources/compile-resource.ts';
import { resolveAccess } from '../../src/permissions/resolve-access.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';

const key = (keyId: string, userId: string, expiresAt?: string): KeyPrincipal => ({
  kind: 'key',
  keyId,
  userId,
  role: 'editor',
  keyPermissions: null,
  ...(expiresAt ? { expiresAt } : {}),
});
const ADMIN: AdminPrincipal = { kind: 'admin' };

function registry(valid: (slot: StreamSlot) => boolean = () => true) {
  const checked: StreamSlot[] = [];
  const r = new StreamRegistry({
    maxPerKey: 2,
    maxPerNode: 4,
    retryAfterSeconds: 3,
    stillValid: async (slot) => {
      checked.push(slot);
      return valid(slot);
    },
    onCheckError: () => {},
  });
  return { r, checked };
}

/** Registers and attaches a stream; `ended` holds its revocation reason once it is revoked. */
function open(r: StreamRegistry, principal: KeyPrincipal | AdminPrincipal, changesSeen = r.changes) {
  const slot = r.register(principal, undefined, changesSeen);
  const state: { slot: StreamSlot; ended: RevokeReason | null } = { slot, ended: null };
  slot.attach((reason) => {
    state.ended = reason;
    r.release(slot);
  });
  return state;
}

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ApiError);
    return error;
  }
  assert.fail('expected a refusal');
};

describe('StreamRegistry', () => {
  it('refuses a key past maxPerKey and the node past maxPerNode with RATE_LIMITED and Retry-After', () => {
    const { r } = registry();
    open(r, key('k1', 'u1'));
    const second = open(r, key('k1', 'u1'));
    const byKey = refusal(() => r.register(key('k1', 'u1'), undefined, r.changes));
    assert.equal(byKey.code, 'RATE_LIMITED');
    assert.equal(byKey.headers?.['Retry-After'], '3');
    open(r, ADMIN);
    open(r, key('k2', 'u2'));
    assert.equal(r.size, 4);
    assert.equal(refusal(() => r.register(ADMIN, undefined, r.changes)).code, 'RATE_LIMITED');
    r.release(second.slot);
    open(r, key('k1', 'u1'));
  });

  it('tells when a stream of a key or of the admin token has closed', () => {
    let released = 0;
    const r = new StreamRegistry({
      maxPerKey: 2,
      maxPerNode: 4,
      retryAfterSeconds: 3,
      stillValid: async () => true,
      onCheckError: () => {},
      onReleased: () => released++,
    });
    const keyed = r.register(key('k1', 'u1'), undefined, r.changes);
    const admin = r.register(ADMIN, undefined, r.changes);
    assert.equal(released, 0);
    r.release(keyed);
    r.release(admin);
    assert.equal(released, 2);
    assert.equal(r.size, 0);
  });

  it("ends every stream of a changed user, and only that user's", () => {
    const { r } = registry();
    const a = open(r, key('k1', 'u1'));
    const b = open(r, key('k2', 'u1'));
    const other = open(r, key('k3', 'u2'));
    r.changed({ userId: 'u1' });
    assert.deepEqual([a.ended, b.ended, other.ended], ['revoked', 'revoked', null]);
    assert.equal(r.size, 1);
  });

  it('re-checks the streams of a changed key and ends those no longer valid', async () => {
    let valid = true;
    const { r, checked } = registry(() => valid);
    const a = open(r, key('k1', 'u1'));
    const other = open(r, key('k2', 'u1'));
    r.changed({ keyId: 'k1' });
    await sleep(0);
    assert.deepEqual(checked, [a.slot]);
    assert.equal(a.ended, null);
    valid = false;
    r.changed({ keyId: 'k1' });
    await sleep(0);
    assert.equal(a.ended, 'revoked');
    assert.equal(other.ended, null);
  });

  it('re-checks a stream when a change was heard between its authentication and its registration', async () => {
    const { r, checked } = registry(() => false);
    const seen = r.changes;
    r.changed({ keyId: 'unrelated' });
    const raced = open(r, key('k1', 'u1'), seen);
    const calm = open(r, key('k2', 'u2'));
    await sleep(0);
    assert.deepEqual(checked, [raced.slot]);
    assert.equal(raced.ended, 'revoked');
    assert.equal(calm.ended, null);
  });

  it('ends a stream at its key expiry, and at once when it is already past', async () => {
    const { r } = registry();
    const soon = open(r, key('k1', 'u1', new Date(Date.now() + 50).toISOString()));
    const past = r.register(key('k2', 'u2', new Date(Date.now() - 1).toISOString()), undefined, r.changes);
    // Revoked before its connection was attached: ended as soon as it is.
    await sleep(0);
    let pastEnded: RevokeReason | null = null;
    past.attach((reason) => (pastEnded = reason));
    assert.equal(pastEnded, 'expired');
    assert.equal(soon.ended, null);
    await sleep(200);
    assert.equal(soon.ended, 'expired');
  });

  it('ends admin-token streams when the admin token changes', () => {
    const { r } = registry();
    const admin = open(r, ADMIN);
    const keyed = open(r, key('k1', 'u1'));
    r.changed({ adminToken: true });
    assert.deepEqual([admin.ended, keyed.ended], ['revoked', null]);
  });

  it('ends the streams whose reading replaced definitions narrowed, on key and admin streams alike, and no other', () => {
    const { r } = registry();
    const definition = (editorFields: string[] | '*'): ResourceDefinition => ({
      fields: { title: { type: 'string' }, body: { type: 'text' } },
      permissions: { editor: { read: { fields: editorFields } } },
    });
    const posts = compileResource('posts', definition('*'));
    const withRead = (principal: KeyPrincipal | AdminPrincipal) => {
      const slot = r.register(principal, undefined, r.changes, [
        {
          resource: posts,
          grant: resolveAccess(posts, principal, 'read'),
          fields: ['title', 'body'],
          deletedAt: false,
        },
      ]);
      const state: { ended: RevokeReason | null } = { ended: null };
      slot.attach((reason) => {
        state.ended = reason;
        r.release(slot);
      });
      return state;
    };
    const editorStream = withRead(key('k1', 'u1'));
    const adminStream = withRead(ADMIN);
    const untracked = open(r, key('k2', 'u2'));
    r.definitionsReplaced((name) => (name === 'posts' ? compileResource('posts', definition('*')) : undefined));
    assert.deepEqual(
      [editorStream.ended, adminStream.ended, untracked.ended],
      [null, null, null],
      'equal definitions narrow nothing',
    );
    r.definitionsReplaced((name) => (name === 'posts' ? compileResource('posts', definition(['title'])) : undefined));
    assert.deepEqual([editorStream.ended, adminStream.ended, untracked.ended], ['narrowed', null, null]);
    r.definitionsReplaced(() => undefined);
    assert.equal(adminStream.ended, 'narrowed', 'a removed resource ends the admin stream too');
    assert.equal(untracked.ended, null);
  });
});
