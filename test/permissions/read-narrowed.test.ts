// Which definition changes take away something an open stream reads (it is then ended) and which do
// not: a table of narrowing, widening and unchanged definitions for one role's read rule.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KeyPrincipal, Principal } from '../../src/auth/principal.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { readNarrowed } from '../../src/permissions/read-narrowed.ts';
import { resolveAccess } from '../../src/permissions/resolve-access.ts';
import { compileResource } from '../../src/resources/compile-resource.ts';
import { filterImplies } from '../../src/query/filter-implies.ts';
import type { FilterNode } from '../../src/query/filter-node.ts';

const FIELDS: ResourceDefinition['fields'] = {
  title: { type: 'string' },
  body: { type: 'string' },
  status: { type: 'enum', values: ['open', 'done', 'archived'] },
  owner: { type: 'string' },
};
type ReadRule = NonNullable<ResourceDefinition['permissions']>[string]['read'];

function posts(read: ReadRule | undefined, extra: Partial<ResourceDefinition> = {}): ResourceDefinition {
  return { fields: FIELDS, permissions: { member: read === undefined ? { create: true } : { read } }, ...extra };
}

const member: KeyPrincipal = { kind: 'key', keyId: 'k1', userId: 'u1', role: 'member', keyPermissions: null };

/** Whether a stream opened under `before` (sent `fields`, or all it may read) is narrowed by `after`. */
function narrowed(
  before: ResourceDefinition,
  after: ResourceDefinition | null,
  options: { fields?: string[]; principal?: Principal } = {},
): boolean {
  const principal = options.principal ?? member;
  const old = compileResource('posts', before);
  const grant = resolveAccess(old, principal, 'read');
  const fields = options.fields ?? old.fieldNames.filter((name) => grant.fields.has(name));
  return readNarrowed(
    { resource: old, grant, fields, deletedAt: false },
    after === null ? undefined : compileResource('posts', after),
    principal,
  );
}

const open = { status: { eq: 'open' } };
const mine = { owner: { eq: '$userId' } };

describe('readNarrowed', () => {
  const cases: Array<
    [string, ResourceDefinition, ResourceDefinition | null, boolean, { fields?: string[]; principal?: Principal }?]
  > = [
    [
      'the same definitions',
      posts({ fields: ['title', 'status'], filter: open }),
      posts({ fields: ['title', 'status'], filter: open }),
      false,
    ],
    ['a field removed from the read list', posts({ fields: ['title', 'body'] }), posts({ fields: ['title'] }), true],
    [
      'a field removed from "*" (listed without it)',
      posts(true),
      posts({ fields: ['title', 'status', 'owner'] }),
      true,
    ],
    [
      'a field removed that the stream is not sent',
      posts({ fields: ['title', 'body'] }),
      posts({ fields: ['title'] }),
      false,
      { fields: ['title'] },
    ],
    ['a field added to the read list', posts({ fields: ['title'] }), posts({ fields: ['title', 'body'] }), false],
    ['fields widened to "*"', posts({ fields: ['title'] }), posts(true), false],
    ['a row filter added', posts(true), posts({ filter: open }), true],
    ['a row filter removed', posts({ filter: open }), posts(true), false],
    [
      'a row filter made narrower (a condition added)',
      posts({ filter: open }),
      posts({ filter: { _and: [open, mine] } }),
      true,
    ],
    [
      'a row filter made wider (a condition dropped)',
      posts({ filter: { _and: [open, mine] } }),
      posts({ filter: open }),
      false,
    ],
    [
      'a row filter made wider (an alternative added)',
      posts({ filter: open }),
      posts({ filter: { _or: [open, mine] } }),
      false,
    ],
    ['a row filter replaced by another', posts({ filter: open }), posts({ filter: { status: { eq: 'done' } } }), true],
    [
      'a row filter widened to a value list (not provable: revoked)',
      posts({ filter: open }),
      posts({ filter: { status: { in: ['open', 'done'] } } }),
      true,
    ],
    ['read removed from the role', posts(true), posts(undefined), true],
    ['the resource disabled', posts(true), posts(true, { enabled: false }), true],
    ['the resource removed', posts(true), null, true],
    ['soft delete switched on', posts(true), posts(true, { enableSoftDelete: true }), true],
    [
      'the type of a sent field changed',
      posts(true),
      { ...posts(true), fields: { ...FIELDS, body: { type: 'text' } } },
      true,
    ],
    [
      'a field added to the resource and to "*"',
      posts(true),
      { ...posts(true), fields: { ...FIELDS, extra: { type: 'string' } } },
      false,
    ],
    [
      'another role changed',
      posts(true),
      { ...posts(true), permissions: { member: { read: true }, guest: { read: { filter: open } } } },
      false,
    ],
    [
      'the admin token after a field was removed',
      posts(true),
      { ...posts(true), fields: { title: FIELDS['title']!, status: FIELDS['status']!, owner: FIELDS['owner']! } },
      true,
      { principal: { kind: 'admin' } },
    ],
    [
      'the admin token after a role rule changed',
      posts(true),
      posts({ fields: ['title'] }),
      false,
      { principal: { kind: 'admin' } },
    ],
  ];
  for (const [name, before, after, expected, options] of cases) {
    it(`${expected ? 'narrows' : 'does not narrow'}: ${name}`, () => {
      assert.equal(narrowed(before, after, options), expected);
    });
  }

  it('does not narrow when the resource object is the very one the stream was opened with', () => {
    const resource = compileResource('posts', posts({ filter: open }));
    const grant = resolveAccess(resource, member, 'read');
    assert.equal(readNarrowed({ resource, grant, fields: ['title'], deletedAt: false }, resource, member), false);
  });
});

describe('filterImplies', () => {
  const a: FilterNode = { kind: 'condition', field: 'status', op: 'eq', value: 'open' };
  const b: FilterNode = { kind: 'condition', field: 'owner', op: 'eq', value: 'u1' };
  const c: FilterNode = { kind: 'condition', field: 'title', op: 'eq', value: 'x' };
  const cases: Array<[string, FilterNode, FilterNode, boolean]> = [
    ['anything implies match-all', a, { kind: 'constant', value: true }, true],
    ['match-none implies anything', { kind: 'constant', value: false }, a, true],
    ['match-all does not imply a condition', { kind: 'constant', value: true }, a, false],
    ['equal trees', { kind: 'and', nodes: [a, b] }, { kind: 'and', nodes: [a, b] }, true],
    ['a conjunction implies each of its parts', { kind: 'and', nodes: [a, b] }, b, true],
    ['a part does not imply the conjunction', a, { kind: 'and', nodes: [a, b] }, false],
    ['a condition implies a disjunction holding it', a, { kind: 'or', nodes: [b, a] }, true],
    ['a disjunction does not imply one alternative', { kind: 'or', nodes: [a, b] }, a, false],
    [
      'a disjunction implies what each alternative implies',
      {
        kind: 'or',
        nodes: [
          { kind: 'and', nodes: [a, b] },
          { kind: 'and', nodes: [a, c] },
        ],
      },
      a,
      true,
    ],
    ['conditions on other values', a, { kind: 'condition', field: 'status', op: 'eq', value: 'done' }, false],
    ['a negation only implies itself', { kind: 'not', node: a }, { kind: 'not', node: a }, true],
    ['a negation does not imply the negated', { kind: 'not', node: a }, a, false],
  ];
  for (const [name, stronger, weaker, expected] of cases) {
    it(name, () => assert.equal(filterImplies(stronger, weaker), expected));
  }
});
