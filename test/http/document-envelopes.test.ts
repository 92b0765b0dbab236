// The envelopes of the two JSON:API request documents (a write's `{data}` and an Atomic Operations
// document) are refused by their schemas (http/bodies/), each problem with the code, status and
// pointer the hand-written checks answered before, and what only code can say still answers as before.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/errors/api-error.ts';
import { flatBodyOf } from '../../src/http/documents/request-document.ts';
import { parseOperations } from '../../src/http/atomic/parse-operations.ts';
import { AtomicOperationsBody, MAX_LID_LENGTH } from '../../src/http/bodies/atomic-operations-body.ts';
import { ResourceRegistry } from '../../src/resources/resource-registry.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';

const RESOURCES: Record<string, ResourceDefinition> = {
  categories: { fields: { name: { type: 'string' } } },
  posts: {
    fields: {
      title: { type: 'string' },
      category_id: { type: 'relation', resource: 'categories' },
    },
  },
  notes: { clientIds: true, fields: { label: { type: 'string' } } },
};
const registry = new ResourceRegistry({ resources: RESOURCES });
const posts = registry.require('posts');
const notes = registry.require('notes');
const ID = '0190b5a2-7c1e-7d3a-9f00-3c5e2a1b4d6f';

interface Refusal {
  status: number;
  code: string;
  pointers: (string | undefined)[];
}

function refusal(run: () => unknown): Refusal {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    return { status: error.status, code: error.code, pointers: error.issues.map((issue) => issue.pointer) };
  }
  assert.fail('taken, not refused');
}

describe('the envelope of a request document (POST, PUT, PATCH /v1/:resource)', () => {
  const create = (document: unknown) => () =>
    flatBodyOf(document as Record<string, unknown>, { resource: posts, urlId: undefined });
  const patch = (document: unknown) => () =>
    flatBodyOf(document as Record<string, unknown>, { resource: posts, urlId: ID });
  const invalid = (...pointers: string[]): Refusal => ({ status: 400, code: 'INVALID_RESOURCE_DATA', pointers });

  it('refuses each malformed member with 400 INVALID_RESOURCE_DATA at that member', () => {
    const cases: [unknown, string][] = [
      [{ data: null }, '/data'],
      [{ data: [] }, '/data'],
      [{ data: 'posts' }, '/data'],
      [{ data: {} }, '/data/type'],
      [{ data: { type: 7 } }, '/data/type'],
      [{ data: { type: 'posts', id: 7 } }, '/data/id'],
      [{ data: { type: 'posts', attributes: [] } }, '/data/attributes'],
      [{ data: { type: 'posts', relationships: [] } }, '/data/relationships'],
      [{ data: { type: 'posts', relationships: { category_id: ID } } }, '/data/relationships/category_id'],
      [{ data: { type: 'posts', relationships: { category_id: {} } } }, '/data/relationships/category_id'],
      [
        { data: { type: 'posts', relationships: { category_id: { data: ID } } } },
        '/data/relationships/category_id/data',
      ],
      [
        { data: { type: 'posts', relationships: { category_id: { data: { id: ID } } } } },
        '/data/relationships/category_id/data/type',
      ],
      [
        { data: { type: 'posts', relationships: { category_id: { data: { type: 'categories' } } } } },
        '/data/relationships/category_id/data/id',
      ],
      [{ data: { type: 'posts', title: 'beside attributes' } }, '/data/title'],
      [{ data: { type: 'posts' }, included: [] }, '/included'],
      [{ data: { type: 'posts' }, 'a/b~c': 1 }, '/a~1b~0c'],
    ];
    for (const [document, pointer] of cases)
      assert.deepEqual(refusal(create(document)), invalid(pointer), JSON.stringify(document));
  });

  it('names every problem of the envelope in one answer', () => {
    assert.deepEqual(
      refusal(create({ data: { type: 'posts', attributes: 1, extra: 2 }, included: [] })).pointers.sort(),
      ['/data/attributes', '/data/extra', '/included'],
    );
  });

  it('takes the members JSON:API defines and ignores (lid, links, meta, jsonapi)', () => {
    const { values } = flatBodyOf(
      { data: { type: 'posts', lid: 'x', links: {}, meta: {}, attributes: { title: 't' } }, meta: {}, jsonapi: {} },
      { resource: posts, urlId: undefined },
    );
    assert.deepEqual(values, { title: 't' });
  });

  it('leaves to code what depends on the URL and the resource, with its own codes', () => {
    assert.deepEqual(refusal(create({ data: { type: 'notes' } })), {
      status: 409,
      code: 'CONFLICT',
      pointers: ['/data/type'],
    });
    assert.deepEqual(refusal(create({ data: { type: 'posts', id: ID } })), {
      status: 403,
      code: 'CLIENT_GENERATED_ID_FORBIDDEN',
      pointers: ['/data/id'],
    });
    assert.deepEqual(
      refusal(() => flatBodyOf({ data: { type: 'notes', id: 'x' } }, { resource: notes, urlId: undefined })),
      invalid('/data/id'),
    );
    assert.deepEqual(refusal(patch({ data: { type: 'posts' } })), invalid('/data/id'));
    assert.deepEqual(refusal(patch({ data: { type: 'posts', id: 'other' } })), {
      status: 409,
      code: 'CONFLICT',
      pointers: ['/data/id'],
    });
    assert.deepEqual(
      refusal(create({ data: { type: 'posts', relationships: { nope: { data: null } } } })),
      invalid('/data/relationships/nope'),
    );
    assert.deepEqual(
      refusal(create({ data: { type: 'posts', relationships: { category_id: { data: { type: 'posts', id: ID } } } } })),
      { status: 409, code: 'CONFLICT', pointers: ['/data/relationships/category_id/data/type'] },
    );
  });
});

describe('the envelope of an Atomic Operations document (POST /v1/operations)', () => {
  const reader = new AtomicOperationsBody(3);
  const parse = (operations: unknown[] | Record<string, unknown>) => () =>
    parseOperations(Array.isArray(operations) ? { 'atomic:operations': operations } : operations, reader);
  const invalid = (...pointers: string[]): Refusal => ({ status: 400, code: 'INVALID_OPERATIONS', pointers });
  const add = { op: 'add', data: { type: 'categories', attributes: { name: 'n' } } };

  it('refuses a body with no list of operations at the document, once', () => {
    for (const body of [{}, { 'atomic:operations': {} }, { 'atomic:operations': 'x' }])
      assert.deepEqual(refusal(parse(body)), invalid(''), JSON.stringify(body));
    assert.deepEqual(
      refusal(() => parseOperations([add], reader)),
      invalid(''),
    );
    assert.deepEqual(refusal(parse({ data: { type: 'categories' } })).pointers.sort(), ['', '/data']);
  });

  it('answers too many operations with 413 TOO_MANY_OPERATIONS alone', () => {
    assert.deepEqual(refusal(parse([add, add, add, { op: 'merge' }])), {
      status: 413,
      code: 'TOO_MANY_OPERATIONS',
      pointers: ['/atomic:operations'],
    });
  });

  it('refuses each malformed operation with 400 INVALID_OPERATIONS at the member at fault', () => {
    const long = 'l'.repeat(MAX_LID_LENGTH + 1);
    const cases: [unknown, string][] = [
      ['nope', '/atomic:operations/0'],
      [{ data: {} }, '/atomic:operations/0/op'],
      [{ op: 'merge', data: {} }, '/atomic:operations/0/op'],
      [{ ...add, extra: 1 }, '/atomic:operations/0/extra'],
      [{ ...add, meta: 1 }, '/atomic:operations/0/meta'],
      [{ ...add, meta: { upsert: 1 } }, '/atomic:operations/0/meta/upsert'],
      [{ op: 'add' }, '/atomic:operations/0/data'],
      [{ op: 'add', data: [] }, '/atomic:operations/0/data'],
      [{ op: 'add', data: { attributes: {} } }, '/atomic:operations/0/data/type'],
      [{ op: 'add', data: { type: 'categories', lid: '' } }, '/atomic:operations/0/data/lid'],
      [{ op: 'add', data: { type: 'categories', lid: long } }, '/atomic:operations/0/data/lid'],
      [{ ...add, ref: 'x' }, '/atomic:operations/0/ref'],
      [{ ...add, ref: { type: 'categories', extra: 1 } }, '/atomic:operations/0/ref/extra'],
      [{ ...add, ref: { type: 'categories', relationship: 'posts' } }, '/atomic:operations/0/ref/relationship'],
      [
        {
          op: 'add',
          data: { type: 'posts', relationships: { category_id: { data: { type: 'categories', id: ID, lid: 'a' } } } },
        },
        '/atomic:operations/0/data/relationships/category_id/data',
      ],
      [
        {
          op: 'add',
          data: { type: 'posts', relationships: { category_id: { data: { type: 'categories', lid: 5 } } } },
        },
        '/atomic:operations/0/data/relationships/category_id/data/lid',
      ],
      [{ op: 'remove' }, '/atomic:operations/0'],
      [{ op: 'remove', href: '/v1/categories/x', ref: { type: 'categories', id: ID } }, '/atomic:operations/0/href'],
      [{ op: 'remove', ref: { id: ID } }, '/atomic:operations/0/ref/type'],
      [{ op: 'remove', ref: { type: 7, id: ID } }, '/atomic:operations/0/ref/type'],
      [{ op: 'remove', ref: { type: 'categories' } }, '/atomic:operations/0/ref'],
      [{ op: 'remove', ref: { type: 'categories', id: ID, lid: 'a' } }, '/atomic:operations/0/ref'],
      [{ op: 'remove', ref: { type: 'categories', id: '' } }, '/atomic:operations/0/ref/id'],
      [{ op: 'remove', ref: { type: 'categories', lid: long } }, '/atomic:operations/0/ref/lid'],
      [{ op: 'remove', ref: { type: 'posts', id: ID, relationship: 'x' } }, '/atomic:operations/0/ref/relationship'],
      [{ op: 'remove', ref: { type: 'categories', id: ID }, data: null }, '/atomic:operations/0/data'],
      [{ op: 'update', ref: { type: 'categories', id: ID } }, '/atomic:operations/0'],
      [
        { op: 'update', ref: { type: 'posts', id: ID, relationship: 7 }, data: null },
        '/atomic:operations/0/ref/relationship',
      ],
      [
        { op: 'update', ref: { type: 'posts', id: ID, relationship: 'category_id' }, data: 5 },
        '/atomic:operations/0/data',
      ],
      [{ op: 'update', data: null }, '/atomic:operations/0/data'],
      [{ op: 'update', data: { type: 'categories' } }, '/atomic:operations/0/data'],
      [{ op: 'update', data: { id: ID } }, '/atomic:operations/0/data/type'],
      [{ op: 'update', data: { type: 'categories', id: 5 } }, '/atomic:operations/0/data/id'],
    ];
    for (const [operation, pointer] of cases) {
      const answer = refusal(parse([operation]));
      assert.equal(answer.status, 400, JSON.stringify(operation));
      assert.equal(answer.code, 'INVALID_OPERATIONS', JSON.stringify(operation));
      assert.ok(answer.pointers.includes(pointer), `${JSON.stringify(operation)}: ${answer.pointers.join(', ')}`);
    }
  });

  it('leaves the resource object of a write to the write (read as a request document when it runs)', () => {
    const [operation] = parseOperations(
      { 'atomic:operations': [{ op: 'add', data: { type: 'categories', attributes: 1, extra: 2 } }] },
      reader,
    );
    assert.equal(operation?.op, 'add');
  });

  it('leaves to code what spans members or operations', () => {
    assert.deepEqual(
      refusal(parse([{ ...add, ref: { type: 'posts' } }])),
      invalid('/atomic:operations/0/ref'),
      "an add's ref names what its data creates",
    );
    assert.deepEqual(
      refusal(parse([{ op: 'remove', ref: { type: 'categories', lid: 'later' } }])),
      invalid('/atomic:operations/0/ref/lid'),
    );
    const withLid = { op: 'add', data: { type: 'categories', lid: 'k' } };
    assert.deepEqual(refusal(parse([withLid, withLid])), invalid('/atomic:operations/1/data/lid'));
    assert.deepEqual(
      refusal(parse([withLid, { op: 'remove', ref: { type: 'posts', lid: 'k' } }])),
      invalid('/atomic:operations/1/ref/lid'),
    );
    assert.deepEqual(
      refusal(
        parse([withLid, { op: 'update', ref: { type: 'categories', lid: 'k' }, data: { type: 'categories', id: ID } }]),
      ),
      invalid('/atomic:operations/1/data'),
    );
    assert.deepEqual(
      parse([withLid, { op: 'update', data: { type: 'categories', lid: 'k' } }])().map((operation) => operation.op),
      ['add', 'update'],
    );
  });
});
