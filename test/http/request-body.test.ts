// A request body checked against its one schema (http/bodies/request-body.ts): each problem once, at
// the member it is about, in the catalogue's codes; the route's own checks see only accepted members.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, type ErrorIssue } from '../../src/errors/api-error.ts';
import { RequestBody } from '../../src/http/bodies/request-body.ts';

const KEY_PERMISSIONS = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    properties: { read: { type: 'array', items: { type: 'string' } } },
    additionalProperties: false,
  },
};

const body = new RequestBody<Record<string, unknown>>({
  name: 'Example',
  schema: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 5 },
      count: { type: ['integer', 'null'], minimum: 1 },
      tags: { type: 'array', maxItems: 2, items: { type: 'string' } },
      roles: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }] },
      permissions: { anyOf: [{ $ref: '#/components/schemas/KeyPermissions' }, { type: 'null' }] },
      'a/b~c': { type: 'boolean' },
    },
    dependentRequired: { name: ['count'] },
    additionalProperties: false,
  },
  components: { KeyPermissions: KEY_PERMISSIONS },
  absentIsEmpty: true,
  memberCodes: new Map([['permissions', 'INVALID_PERMISSIONS']]),
});

function refusal(read: () => unknown): ApiError {
  try {
    read();
  } catch (error) {
    assert.ok(error instanceof ApiError);
    return error;
  }
  assert.fail('the body was accepted');
}

const pointers = (error: ApiError): (string | undefined)[] => error.issues.map((issue) => issue.pointer).sort();

describe('a request body read against its schema', () => {
  it('accepts a body that fits, and reads a missing one as {}', () => {
    const given = { name: 'ok', count: 2, tags: ['a'], roles: '["x"]', permissions: null };
    assert.deepEqual(body.read(given), given);
    assert.deepEqual(body.read(undefined), {});
    assert.deepEqual(body.read(null), {});
  });

  it('refuses a body that is not a JSON object at /data', () => {
    for (const given of [[1], 'text', 7, true]) {
      const error = refusal(() => body.read(given));
      assert.equal(error.code, 'INVALID_RESOURCE_DATA');
      assert.deepEqual(pointers(error), ['/data']);
    }
  });

  it('points at each bad member once, whatever number of keywords it breaks', () => {
    const error = refusal(() => body.read({ name: 'far too long', count: 0.5, tags: ['a', 2, 'c'] }));
    assert.equal(error.code, 'INVALID_RESOURCE_DATA');
    assert.deepEqual(pointers(error), [
      '/data/attributes/count',
      '/data/attributes/name',
      '/data/attributes/tags',
      '/data/attributes/tags/1',
    ]);
    const count = error.issues.find((issue) => issue.pointer === '/data/attributes/count');
    assert.equal(count?.detail, "'count' must be an integer or null");
  });

  it('points at an unknown member, a missing one, and escapes odd names', () => {
    const error = refusal(() => body.read({ name: 'x', 'a/b~c': 'no', colour: 'red' }));
    assert.deepEqual(pointers(error), [
      '/data/attributes/a~1b~0c',
      '/data/attributes/colour',
      '/data/attributes/count',
    ]);
    assert.match(
      error.issues.find((i) => i.pointer === '/data/attributes/colour')!.detail,
      /Unknown attribute 'colour'/,
    );
    assert.match(
      error.issues.find((i) => i.pointer === '/data/attributes/count')!.detail,
      /'count' is required with 'name'/,
    );
  });

  it('never treats a member named after an Object member as known', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1, "toString": 2}');
    const error = refusal(() => body.read(parsed));
    assert.deepEqual(pointers(error), [
      '/data/attributes/__proto__',
      '/data/attributes/constructor',
      '/data/attributes/toString',
    ]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('answers an alternative no branch of which fits the type at the member, in the types it takes', () => {
    const error = refusal(() => body.read({ roles: 7 }));
    assert.deepEqual(pointers(error), ['/data/attributes/roles']);
    assert.equal(error.issues[0]!.detail, "'roles' must be an array or a string");
  });

  it('answers an alternative whose branch took the type where that branch failed', () => {
    assert.deepEqual(pointers(refusal(() => body.read({ roles: ['a', 3] }))), ['/data/attributes/roles/1']);
    const error = refusal(() => body.read({ permissions: { posts: { publish: [] } } }));
    assert.deepEqual(pointers(error), ['/data/attributes/permissions/posts/publish']);
  });

  it("answers a member's own code, and data problems first when both kinds are there", () => {
    const permissions = refusal(() => body.read({ permissions: ['posts'] }));
    assert.equal(permissions.code, 'INVALID_PERMISSIONS');
    assert.deepEqual(pointers(permissions), ['/data/attributes/permissions']);
    const both = refusal(() => body.read({ permissions: ['posts'], count: 0 }));
    assert.equal(both.code, 'INVALID_RESOURCE_DATA');
    assert.deepEqual(pointers(both), ['/data/attributes/count']);
  });

  it("hands the route's check only the members the schema accepted, and answers every problem at once", () => {
    const seen: Record<string, unknown>[] = [];
    const check = (accepted: Record<string, unknown>): ErrorIssue[] => {
      seen.push(accepted);
      return accepted.name === 'bad' ? [{ detail: 'not this name', pointer: '/name' }] : [];
    };
    const error = refusal(() => body.read({ name: 'bad', count: 0, tags: ['a'] }, check));
    assert.deepEqual(seen, [{ name: 'bad', tags: ['a'] }]);
    assert.deepEqual(pointers(error), ['/data/attributes/count', '/data/attributes/name']);
  });
});

describe('a request body built to be costly', () => {
  const unknownMembers = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`m${i}`, i]));
  const timeToRefuse = (members: Record<string, unknown>): number => {
    const started = performance.now();
    refusal(() => body.read(members));
    return performance.now() - started;
  };

  it('answers a hundred thousand unknown members, naming the first hundred', () => {
    const error = refusal(() => body.read(unknownMembers(100_000)));
    assert.equal(error.code, 'INVALID_RESOURCE_DATA');
    assert.equal(error.issues.length, 100);
    assert.equal(error.issues[0]!.pointer, '/data/attributes/m0');
  });

  it('takes time in proportion to the members, not to their square', () => {
    const small = unknownMembers(8_000);
    const large = unknownMembers(80_000);
    timeToRefuse(small); // warm-up
    // Ten times the members: 14-17 times the time on an idle machine (larger objects cost V8 more per
    // member), 42 once on a loaded CI machine; quadratic work would be a hundred times and more. The
    // smallest of five runs each, so a busy machine's pauses do not decide it.
    const best = (members: Record<string, unknown>) => Math.min(...[0, 1, 2, 3, 4].map(() => timeToRefuse(members)));
    const ratio = best(large) / best(small);
    assert.ok(ratio < 70, `80,000 members took ${ratio.toFixed(1)} times as long as 8,000`);
  });
});
