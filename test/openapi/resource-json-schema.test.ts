// The bare JSON Schema of `GET /v1/:r/schema`: shape, every field type, and that it accepts the
// records the service returns and rejects others.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resourceJsonSchema } from '../../src/resources/resource-json-schema.ts';
import type { Resource } from '../../src/resources/resource.ts';
import { fixtureRegistry, strictAjv } from './openapi-fixtures.ts';
import { ResourceRegistry } from '../../src/resources/resource-registry.ts';

const registry = fixtureRegistry();
const resource = (name: string): Resource => {
  const found = registry.find(name);
  assert.ok(found, `fixture resource ${name}`);
  return found;
};
const properties = (schema: Record<string, unknown>) => schema.properties as Record<string, Record<string, unknown>>;

const ID = '0190b5a2-7c1e-7d3a-9f00-3c5e2a1b4d6f';
const NOW = '2026-01-02T01:04:05.000Z';
const validPost = (): Record<string, unknown> => ({
  id: ID,
  title: 'Hello',
  body: null,
  status: 'published',
  views: 42,
  rating: 4.5,
  published: true,
  published_at: NOW,
  publish_on: '2026-01-02',
  external_id: '0b1e1c4e-3c9a-4d8e-9a57-2f0c1e0a9b11',
  contact: 'someone@example.com',
  source: 'https://example.com/a?b=c',
  tags: { list: ['a', 'b'], nested: { none: null } },
  category_id: ID,
  created_at: NOW,
  updated_at: NOW,
});

describe('resourceJsonSchema', () => {
  const posts = resourceJsonSchema(resource('posts'), null);
  const validate = strictAjv().compile(posts);

  it('is a draft 2020-12 object schema named after the resource, closed to unknown attributes', () => {
    assert.equal(posts.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.equal(posts.$id, '/v1/posts/schema');
    assert.equal(posts.title, 'posts');
    assert.equal(posts.type, 'object');
    assert.equal(posts.additionalProperties, false);
    assert.equal(resourceJsonSchema(resource('categories'), null).description, 'Groups of posts');
  });

  it('lists id, every field in definition order, then the timestamps; deleted_at never, soft delete or not', () => {
    assert.deepEqual(Object.keys(properties(posts)), [
      'id',
      ...resource('posts').fieldNames,
      'created_at',
      'updated_at',
    ]);
    assert.equal(resource('posts').softDelete, true);
    assert.equal(properties(posts).deleted_at, undefined);
  });

  it('marks the system fields read-only with their formats', () => {
    const props = properties(posts);
    assert.deepEqual([props.id?.type, props.id?.format, props.id?.readOnly], ['string', 'uuid', true]);
    for (const name of ['created_at', 'updated_at']) {
      assert.deepEqual([props[name]?.type, props[name]?.format, props[name]?.readOnly], ['string', 'date-time', true]);
    }
    for (const name of resource('posts').fieldNames) assert.equal(props[name]?.readOnly, undefined, name);
  });

  it('requires the system fields and the required fields', () => {
    assert.deepEqual(posts.required, ['id', 'title', 'published', 'created_at', 'updated_at']);
    assert.deepEqual(resourceJsonSchema(resource('categories'), null).required, [
      'id',
      'name',
      'slug',
      'created_at',
      'updated_at',
    ]);
  });

  it('describes each of the 13 field types', () => {
    const props = { ...properties(posts), ...properties(resourceJsonSchema(resource('categories'), null)) };
    // Optional fields are nullable by default; required ones are not.
    const expected: Record<string, Record<string, unknown>> = {
      title: { type: 'string', maxLength: 200 },
      name: { type: 'string', minLength: 2, maxLength: 80 },
      slug: { type: 'string', pattern: '^[a-z0-9-]+$', maxLength: 255 },
      body: { type: ['string', 'null'] },
      description: { type: ['string', 'null'], description: 'Shown on the category page' },
      status: { type: ['string', 'null'], enum: ['draft', 'published', null], default: 'draft' },
      views: { type: ['integer', 'null'], minimum: 0, default: 0 },
      rating: { type: ['number', 'null'], minimum: 0, maximum: 5 },
      published: { type: 'boolean' },
      published_at: { type: ['string', 'null'], format: 'date-time' },
      publish_on: { type: ['string', 'null'], format: 'date' },
      external_id: { type: ['string', 'null'], format: 'uuid' },
      contact: { type: ['string', 'null'], format: 'email' },
      source: { type: ['string', 'null'], format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]' },
      category_id: {
        type: ['string', 'null'],
        format: 'uuid',
        'x-relation': { resource: 'categories', onDelete: 'set_null' },
      },
    };
    for (const [name, keywords] of Object.entries(expected)) {
      for (const [keyword, value] of Object.entries(keywords)) {
        assert.deepEqual(props[name]?.[keyword], value, `${name}.${keyword}`);
      }
    }
    // json: any JSON value, null included, so no type at all.
    assert.equal(props.tags?.type, undefined);
    assert.deepEqual(props.views?.maximum, Number.MAX_SAFE_INTEGER);
  });

  it('annotates relations with their target and the default onDelete', () => {
    const comments = properties(resourceJsonSchema(resource('comments'), null));
    assert.deepEqual(comments.post_id?.['x-relation'], { resource: 'posts', onDelete: 'restrict' });
    assert.equal(comments.post_id?.type, 'string');
    assert.deepEqual(comments.body?.type, ['string', 'null'], 'required: true with nullable: true stays nullable');
  });

  it('accepts a full record and one with only the required fields', () => {
    assert.equal(validate(validPost()), true, JSON.stringify(validate.errors));
    const minimal = { id: ID, title: 'x', published: false, created_at: NOW, updated_at: NOW };
    assert.equal(validate(minimal), true, JSON.stringify(validate.errors));
    const nulls = { ...minimal, status: null, views: null, tags: null, category_id: null, publish_on: null };
    assert.equal(validate(nulls), true, JSON.stringify(validate.errors));
  });

  const bad: [string, Record<string, unknown>][] = [
    ['a title over maxLength', { title: 'x'.repeat(201) }],
    ['a number as title', { title: 5 }],
    ['a null required field', { title: null }],
    ['a value outside the enum', { status: 'archived' }],
    ['a fractional integer', { views: 1.5 }],
    ['an integer below minimum', { views: -1 }],
    ['a number above maximum', { rating: 6 }],
    ['a string boolean', { published: 'true' }],
    ['a date-time without a time zone', { published_at: '2026-01-02T03:04:05' }],
    ['an impossible date', { publish_on: '2026-02-30' }],
    ['a malformed uuid', { external_id: 'not-a-uuid' }],
    ['a malformed email', { contact: 'nobody' }],
    ['a relative url', { source: '/relative' }],
    ['a relation that is not an id', { category_id: 7 }],
    ['a malformed record id', { id: '42' }],
    ['an unknown attribute', { colour: 'red' }],
    ['deleted_at', { deleted_at: NOW }],
  ];
  for (const [what, change] of bad) {
    it(`rejects a record with ${what}`, () => {
      assert.equal(validate({ ...validPost(), ...change }), false);
    });
  }
  for (const missing of ['id', 'title', 'published', 'created_at', 'updated_at']) {
    it(`rejects a record without ${missing}`, () => {
      const record = validPost();
      delete record[missing];
      assert.equal(validate(record), false);
    });
  }

  it('keeps only readable fields, and always the system fields', () => {
    const schema = resourceJsonSchema(resource('posts'), new Set(['body', 'status', 'not_a_field']));
    assert.deepEqual(Object.keys(properties(schema)), ['id', 'body', 'status', 'created_at', 'updated_at']);
    assert.deepEqual(
      schema.required,
      ['id', 'created_at', 'updated_at'],
      'unreadable required fields are not required',
    );
    const check = strictAjv().compile(schema);
    assert.equal(check({ id: ID, body: 'b', status: 'draft', created_at: NOW, updated_at: NOW }), true);
    assert.equal(
      check({ id: ID, title: 'hidden', created_at: NOW, updated_at: NOW }),
      false,
      'an unreadable field is not allowed',
    );
    const none = resourceJsonSchema(resource('posts'), new Set());
    assert.deepEqual(Object.keys(properties(none)), ['id', 'created_at', 'updated_at']);
  });

  it('agrees with the field validators on non-null values', () => {
    // The schema and the body validator both derive from valueSchema; check they have not drifted apart.
    const samples: unknown[] = [
      'x',
      '',
      'x'.repeat(201),
      0,
      -1,
      1.5,
      6,
      true,
      'true',
      NOW,
      '2026-01-02',
      ID,
      'a@b.co',
      'https://e.com',
      {},
      [],
    ];
    for (const field of resource('posts').fields.values()) {
      const check = strictAjv().compile({ ...properties(posts)[field.name] });
      for (const value of samples) {
        assert.equal(check(value), field.validate(value).length === 0, `${field.name} with ${JSON.stringify(value)}`);
      }
    }
  });
});

describe('resourceJsonSchema of file fields', () => {
  const files = new ResourceRegistry({
    resources: {
      profiles: {
        fields: {
          avatar: { type: 'file', accept: ['image/*'], maxSize: 4096, thumbs: ['48x48'] },
          papers: { type: 'files', maxCount: 3 },
        },
      },
    },
  }).find('profiles');
  assert.ok(files);
  const schema = resourceJsonSchema(files, null);
  const props = properties(schema);

  it('marks them read-only metadata with a url and names their limits for clients', () => {
    const avatar = props.avatar!;
    assert.equal(avatar.readOnly, true);
    assert.equal(avatar['x-file'], true);
    assert.equal(avatar['x-max-size'], 4096);
    assert.deepEqual(avatar['x-accept'], ['image/*']);
    assert.deepEqual(avatar['x-thumbs'], ['48x48']);
    assert.ok((avatar.required as string[]).includes('url'));
    const papers = props.papers!;
    assert.equal(papers.maxItems, 3);
    assert.equal(papers['x-max-size'], 10 * 1024 * 1024, 'the default maxSize is said too');
    assert.equal(papers['x-accept'], undefined, 'any type: no list');
  });

  it('compiles in a strict validator that declares the x- keywords, and accepts a file as read', () => {
    const validate = strictAjv().compile(schema);
    const file = { id: 'f1', name: 'a.png', size: 3, type: 'image/png', sha256: 'a'.repeat(64), url: '/v1/x' };
    const record = { id: ID, avatar: file, papers: [file], created_at: NOW, updated_at: NOW };
    assert.ok(validate(record), JSON.stringify(validate.errors));
  });
});
