// validateConfig: the schema and the rules beside it, each problem at its dotted path.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigProblem } from '../../src/config/validate-config.ts';
import { validateConfig } from '../../src/resources/config-loader.ts';

/** A valid two-resource config; scenarios change one part of it. */
function blog(): Record<string, any> {
  return {
    resources: {
      categories: { fields: { name: { type: 'string', required: true } } },
      posts: {
        fields: {
          title: { type: 'string', required: true, maxLength: 200, sortable: true },
          status: { type: 'enum', values: ['draft', 'published'], default: 'draft' },
          views: { type: 'integer', minimum: 0, default: 0 },
          tags: { type: 'json' },
          author_id: { type: 'string' },
          category_id: { type: 'relation', resource: 'categories' },
        },
        permissions: {
          user: {
            read: { fields: ['title', 'status'], filter: { author_id: { eq: '$userId' } } },
            create: { fields: ['title'], preset: { author_id: '$userId' } },
          },
        },
      },
    },
  };
}

const posts = (config: Record<string, any>) => config.resources.posts;
const fields = (config: Record<string, any>) => config.resources.posts.fields;
const userRules = (config: Record<string, any>) => config.resources.posts.permissions.user;

interface ProblemScenario {
  name: string;
  change: (config: Record<string, any>) => void;
  path: string;
  message: RegExp;
}

const PROBLEMS: ProblemScenario[] = [
  // names
  {
    name: 'a resource name with capitals',
    change: (c) => (c.resources.Posts = { fields: {} }),
    path: 'resources.Posts',
    message: /must match/,
  },
  {
    name: 'a resource name starting with a digit',
    change: (c) => (c.resources['1posts'] = { fields: {} }),
    path: 'resources.1posts',
    message: /must match/,
  },
  {
    name: 'a resource name longer than 63 characters',
    change: (c) => (c.resources[`a${'b'.repeat(63)}`] = { fields: {} }),
    path: `resources.a${'b'.repeat(63)}`,
    message: /must match/,
  },
  {
    name: 'the resource name constructor',
    change: (c) => (c.resources.constructor = { fields: {} }),
    path: 'resources.constructor',
    message: /reserved/,
  },
  {
    name: 'a resource name starting with svc_',
    change: (c) => (c.resources.svc_users = { fields: {} }),
    path: 'resources.svc_users',
    message: /reserved for internal tables/,
  },
  {
    name: 'the resource name operations (POST /v1/operations)',
    change: (c) => (c.resources.operations = { fields: {} }),
    path: 'resources.operations',
    message: /\/v1\/operations is svc's own endpoint/,
  },
  {
    name: 'the resource name stream (GET /v1/stream, several resources on one connection)',
    change: (c) => (c.resources.stream = { fields: {} }),
    path: 'resources.stream',
    message: /\/v1\/stream is svc's own endpoint/,
  },
  {
    name: 'a field name with a dash',
    change: (c) => (fields(c)['sub-title'] = { type: 'string' }),
    path: 'resources.posts.fields.sub-title',
    message: /must match/,
  },
  ...[
    'id',
    'created_at',
    'updated_at',
    'deleted_at',
    '_limit',
    '_offset',
    '_sort',
    'fields',
    'events',
    'page',
    'token',
  ].map(
    (name): ProblemScenario => ({
      name: `the reserved field name ${name}`,
      change: (c) => (fields(c)[name] = { type: 'string' }),
      path: `resources.posts.fields.${name}`,
      message: /reserved name/,
    }),
  ),
  // structure
  {
    name: 'an unknown top-level key',
    change: (c) => (c.servr = {}),
    path: 'servr',
    message: /unknown key \(expected one of: .*server/,
  },
  {
    name: 'an unknown server key',
    change: (c) => (c.server = { prot: 1 }),
    path: 'server.prot',
    message: /unknown key/,
  },
  {
    name: 'a port out of range',
    change: (c) => (c.server = { port: 70000 }),
    path: 'server.port',
    message: /<= 65535/,
  },
  {
    name: 'a port given as text in the file',
    change: (c) => (c.server = { port: '3000' }),
    path: 'server.port',
    message: /must be integer/,
  },
  {
    name: 'a basePath without a leading slash',
    change: (c) => (c.auth = { basePath: 'auth' }),
    path: 'auth.basePath',
    message: /must start with \//,
  },
  {
    name: 'a resource without fields',
    change: (c) => delete posts(c).fields,
    path: 'resources.posts.fields',
    message: /is required/,
  },
  {
    name: 'an unknown resource option',
    change: (c) => (posts(c).softDelete = true),
    path: 'resources.posts.softDelete',
    message: /unknown key/,
  },
  {
    name: 'a field without a type',
    change: (c) => (fields(c).title = { required: true }),
    path: 'resources.posts.fields.title.type',
    message: /is required/,
  },
  {
    name: 'an unknown field type',
    change: (c) => (fields(c).title.type = 'strng'),
    path: 'resources.posts.fields.title.type',
    message: /must be one of: string, text/,
  },
  {
    name: 'an unknown field attribute',
    change: (c) => (fields(c).title.maxlength = 3),
    path: 'resources.posts.fields.title.maxlength',
    message: /unknown key/,
  },
  // types and their attributes
  {
    name: 'an enum without values',
    change: (c) => delete fields(c).status.values,
    path: 'resources.posts.fields.status.values',
    message: /non-empty values/,
  },
  {
    name: 'an enum with empty values',
    change: (c) => (fields(c).status = { type: 'enum', values: [] }),
    path: 'resources.posts.fields.status.values',
    message: /fewer than 1/,
  },
  {
    name: 'a relation without resource',
    change: (c) => delete fields(c).category_id.resource,
    path: 'resources.posts.fields.category_id.resource',
    message: /need resource/,
  },
  {
    name: 'a relation to an unknown resource',
    change: (c) => (fields(c).category_id.resource = 'tags'),
    path: 'resources.posts.fields.category_id.resource',
    message: /unknown resource "tags"/,
  },
  {
    name: 'an unknown onDelete',
    change: (c) => (fields(c).category_id.onDelete = 'nullify'),
    path: 'resources.posts.fields.category_id.onDelete',
    message: /restrict, cascade, set_null/,
  },
  {
    name: 'set_null on a required relation',
    change: (c) => Object.assign(fields(c).category_id, { onDelete: 'set_null', required: true }),
    path: 'resources.posts.fields.category_id.onDelete',
    message: /may be null/,
  },
  {
    name: 'set_null on a non-nullable relation',
    change: (c) => Object.assign(fields(c).category_id, { onDelete: 'set_null', nullable: false }),
    path: 'resources.posts.fields.category_id.onDelete',
    message: /may be null/,
  },
  {
    name: 'values on a string',
    change: (c) => (fields(c).title.values = ['a']),
    path: 'resources.posts.fields.title.values',
    message: /does not apply to string/,
  },
  {
    name: 'maxLength on an integer',
    change: (c) => (fields(c).views.maxLength = 3),
    path: 'resources.posts.fields.views.maxLength',
    message: /does not apply to integer/,
  },
  {
    name: 'minimum on a string',
    change: (c) => (fields(c).title.minimum = 3),
    path: 'resources.posts.fields.title.minimum',
    message: /does not apply to string/,
  },
  {
    name: 'resource on an enum',
    change: (c) => (fields(c).status.resource = 'categories'),
    path: 'resources.posts.fields.status.resource',
    message: /does not apply to enum/,
  },
  {
    name: 'a sortable json field',
    change: (c) => (fields(c).tags.sortable = true),
    path: 'resources.posts.fields.tags.sortable',
    message: /json fields cannot be sortable/,
  },
  {
    name: 'a pattern that does not compile',
    change: (c) => (fields(c).title.pattern = '(['),
    path: 'resources.posts.fields.title.pattern',
    message: /not a valid regular expression/,
  },
  {
    name: 'minimum above maximum',
    change: (c) => Object.assign(fields(c).views, { minimum: 10, maximum: 5 }),
    path: 'resources.posts.fields.views.minimum',
    message: /greater than maximum/,
  },
  {
    name: 'minLength above maxLength',
    change: (c) => Object.assign(fields(c).title, { minLength: 10, maxLength: 5 }),
    path: 'resources.posts.fields.title.minLength',
    message: /greater than maxLength/,
  },
  {
    name: 'a string minLength above the default maxLength',
    change: (c) => (fields(c).author_id.minLength = 300),
    path: 'resources.posts.fields.author_id.minLength',
    message: /default maxLength of string fields \(255\)/,
  },
  {
    name: 'a negative maxLength',
    change: (c) => (fields(c).title.maxLength = -1),
    path: 'resources.posts.fields.title.maxLength',
    message: />= 1/,
  },
  // defaults
  {
    name: 'an enum default outside its values',
    change: (c) => (fields(c).status.default = 'archived'),
    path: 'resources.posts.fields.status.default',
    message: /must be one of: draft, published/,
  },
  {
    name: 'a fractional integer default',
    change: (c) => (fields(c).views.default = 1.5),
    path: 'resources.posts.fields.views.default',
    message: /integer/,
  },
  {
    name: 'an integer default below minimum',
    change: (c) => (fields(c).views.default = -1),
    path: 'resources.posts.fields.views.default',
    message: />= 0/,
  },
  {
    name: 'a boolean default that is text',
    change: (c) => (fields(c).flag = { type: 'boolean', default: 'yes' }),
    path: 'resources.posts.fields.flag.default',
    message: /boolean/,
  },
  {
    name: 'a number default that is text',
    change: (c) => (fields(c).score = { type: 'number', default: '1.5' }),
    path: 'resources.posts.fields.score.default',
    message: /number/,
  },
  {
    name: 'a string default longer than maxLength',
    change: (c) => (fields(c).title.default = 'x'.repeat(201)),
    path: 'resources.posts.fields.title.default',
    message: /200/,
  },
  {
    name: 'a string default longer than the default maxLength',
    change: (c) => (fields(c).author_id.default = 'x'.repeat(256)),
    path: 'resources.posts.fields.author_id.default',
    message: /255/,
  },
  {
    name: 'a string default not matching pattern',
    change: (c) => (fields(c).code = { type: 'string', pattern: '^[A-Z]+$', default: 'abc' }),
    path: 'resources.posts.fields.code.default',
    message: /pattern/,
  },
  {
    name: 'a date default that is no date',
    change: (c) => (fields(c).day = { type: 'date', default: '2024-02-30' }),
    path: 'resources.posts.fields.day.default',
    message: /date/,
  },
  {
    name: 'a datetime default without a time zone',
    change: (c) => (fields(c).at = { type: 'datetime', default: '2024-01-01 10:00' }),
    path: 'resources.posts.fields.at.default',
    message: /date-time/,
  },
  {
    name: 'a uuid default that is no uuid',
    change: (c) => (fields(c).ext = { type: 'uuid', default: 'abc' }),
    path: 'resources.posts.fields.ext.default',
    message: /uuid/,
  },
  {
    name: 'an email default that is no email',
    change: (c) => (fields(c).mail = { type: 'email', default: 'nobody' }),
    path: 'resources.posts.fields.mail.default',
    message: /email/,
  },
  {
    name: 'a url default that is no url',
    change: (c) => (fields(c).link = { type: 'url', default: 'not a url' }),
    path: 'resources.posts.fields.link.default',
    message: /uri/,
  },
  {
    name: 'a url default with a javascript: scheme',
    change: (c) => (fields(c).link = { type: 'url', default: 'javascript:alert(1)' }),
    path: 'resources.posts.fields.link.default',
    message: /absolute http or https URL/,
  },
  // The field type's own limits apply to defaults: an email over 320 characters and a url over 2048 are
  // refused by a create, so they cannot be defaults either.
  {
    name: 'an email default longer than an email may be',
    change: (c) =>
      (fields(c).mail = {
        type: 'email',
        default: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(63)}.com`,
      }),
    path: 'resources.posts.fields.mail.default',
    message: /must NOT have more than 320 characters/,
  },
  {
    name: 'a url default longer than a url may be',
    change: (c) => (fields(c).link = { type: 'url', default: `https://example.com/${'a'.repeat(2040)}` }),
    path: 'resources.posts.fields.link.default',
    message: /must NOT have more than 2048 characters/,
  },
  {
    name: 'a null default on a required field',
    change: (c) => (fields(c).title.default = null),
    path: 'resources.posts.fields.title.default',
    message: /cannot be null/,
  },
  // field ids
  {
    name: 'a field id used twice',
    change: (c) => (fields(c).views.id = 'posts.title'),
    path: 'resources.posts.fields.views.id',
    message: /already used by resources.posts.fields.title/,
  },
  // permissions
  {
    name: 'an unknown field in a read list',
    change: (c) => (userRules(c).read.fields = ['title', 'titel']),
    path: 'resources.posts.permissions.user.read.fields.1',
    message: /unknown field "titel" \(fields of posts: title, /,
  },
  {
    name: 'a system field in a fields list',
    change: (c) => (userRules(c).create.fields = ['id']),
    path: 'resources.posts.permissions.user.create.fields.0',
    message: /unknown field "id"/,
  },
  {
    name: 'a fields string other than *',
    change: (c) => (userRules(c).read.fields = 'all'),
    path: 'resources.posts.permissions.user.read.fields',
    message: /must be "\*" or a list/,
  },
  {
    name: 'an unknown field in a filter',
    change: (c) => (userRules(c).read.filter = { owner: { eq: '$userId' } }),
    path: 'resources.posts.permissions.user.read.filter.owner',
    message: /unknown field "owner"/,
  },
  {
    name: 'an unknown field deep in _or/_not',
    change: (c) =>
      (userRules(c).read.filter = { _or: [{ title: { eq: 'a' } }, { _not: { nope: { is_null: true } } }] }),
    path: 'resources.posts.permissions.user.read.filter._or.1._not.nope',
    message: /unknown field "nope"/,
  },
  {
    name: 'deleted_at in a filter',
    change: (c) => (userRules(c).read.filter = { deleted_at: { is_null: true } }),
    path: 'resources.posts.permissions.user.read.filter.deleted_at',
    message: /unknown field/,
  },
  {
    name: 'an unknown field in a check',
    change: (c) => (userRules(c).create.check = { owner: { eq: '$userId' } }),
    path: 'resources.posts.permissions.user.create.check.owner',
    message: /unknown field "owner"/,
  },
  {
    name: 'an unknown field in a preset',
    change: (c) => (userRules(c).create.preset = { owner: '$userId' }),
    path: 'resources.posts.permissions.user.create.preset.owner',
    message: /unknown field "owner"/,
  },
  {
    name: 'a system field in a preset',
    change: (c) => (userRules(c).create.preset = { id: 'x' }),
    path: 'resources.posts.permissions.user.create.preset.id',
    message: /system field id cannot be preset/,
  },
  {
    name: 'an unknown operator',
    change: (c) => (userRules(c).read.filter = { title: { equals: 'a' } }),
    path: 'resources.posts.permissions.user.read.filter.title.equals',
    message: /unknown operator \(expected one of: eq, neq/,
  },
  {
    name: 'a condition without an operator',
    change: (c) => (userRules(c).read.filter = { title: {} }),
    path: 'resources.posts.permissions.user.read.filter.title',
    message: /needs an operator/,
  },
  {
    name: 'a bare value instead of a condition',
    change: (c) => (userRules(c).read.filter = { title: 'a' }),
    path: 'resources.posts.permissions.user.read.filter.title',
    message: /must be object/,
  },
  {
    name: 'in with a scalar',
    change: (c) => (userRules(c).read.filter = { status: { in: 'draft' } }),
    path: 'resources.posts.permissions.user.read.filter.status.in',
    message: /must be array/,
  },
  {
    name: '_or that is not a list',
    change: (c) => (userRules(c).read.filter = { _or: { title: { eq: 'a' } } }),
    path: 'resources.posts.permissions.user.read.filter._or',
    message: /must be array/,
  },
  {
    name: 'a regex value that does not compile',
    change: (c) => (userRules(c).read.filter = { title: { regex: '(' } }),
    path: 'resources.posts.permissions.user.read.filter.title.regex',
    message: /not a valid regular expression/,
  },
  {
    name: 'an unknown session variable',
    change: (c) => (userRules(c).read.filter = { author_id: { eq: '$user' } }),
    path: 'resources.posts.permissions.user.read.filter.author_id.eq',
    message: /unknown session variable \$user/,
  },
  {
    name: 'an unknown session variable in a preset',
    change: (c) => (userRules(c).create.preset = { author_id: '$uid' }),
    path: 'resources.posts.permissions.user.create.preset.author_id',
    message: /unknown session variable/,
  },
  {
    name: 'an unknown action',
    change: (c) => (userRules(c).list = true),
    path: 'resources.posts.permissions.user.list',
    message: /expected one of: read, create, update, delete/,
  },
  {
    name: 'an action set to false',
    change: (c) => (userRules(c).delete = false),
    path: 'resources.posts.permissions.user.delete',
    message: /must be true or an object/,
  },
  {
    name: 'an action set to a number',
    change: (c) => (userRules(c).delete = 1),
    path: 'resources.posts.permissions.user.delete',
    message: /must be true or an object/,
  },
  {
    name: 'a filter on create',
    change: (c) => (userRules(c).create.filter = {}),
    path: 'resources.posts.permissions.user.create.filter',
    message: /unknown key \(expected one of: fields, check, preset\)/,
  },
  {
    name: 'a check on read',
    change: (c) => (userRules(c).read.check = {}),
    path: 'resources.posts.permissions.user.read.check',
    message: /unknown key \(expected one of: fields, filter\)/,
  },
  {
    name: 'fields on delete',
    change: (c) => (userRules(c).delete = { fields: '*' }),
    path: 'resources.posts.permissions.user.delete.fields',
    message: /unknown key/,
  },
  // settings
  {
    name: 'a database URL of an unknown kind',
    change: (c) => (c.database = { url: 'mysql://localhost/db' }),
    path: 'database.url',
    message: /sqlite:PATH or postgres/,
  },
  {
    name: 'a CORS origin with a trailing slash',
    change: (c) => (c.server = { cors: { origins: ['http://localhost:5173/'] } }),
    path: 'server.cors.origins.0',
    message: /without path or trailing slash/,
  },
  {
    name: 'an empty host',
    change: (c) => (c.server = { host: '' }),
    path: 'server.host',
    message: /must not be empty/,
  },
  {
    name: 'a baseUrl that is no URL',
    change: (c) => (c.auth = { baseUrl: 'example.com' }),
    path: 'auth.baseUrl',
    message: /http\(s\) URL/,
  },
];

function problemsOf(change: (config: Record<string, any>) => void): ConfigProblem[] {
  const config = blog();
  change(config);
  return validateConfig(config).problems;
}

describe('validateConfig', () => {
  it('accepts the base scenario config', () => {
    const result = validateConfig(blog());
    assert.deepEqual(result.problems, []);
    assert.ok(result.config);
  });

  for (const scenario of PROBLEMS) {
    it(`reports ${scenario.name} at ${scenario.path}`, () => {
      const problems = problemsOf(scenario.change);
      const match = problems.find((p) => p.path === scenario.path);
      assert.ok(
        match,
        `no problem at ${scenario.path}; got:\n${problems.map((p) => `${p.path}: ${p.message}`).join('\n')}`,
      );
      assert.match(match.message, scenario.message);
      assert.equal(
        validateConfig(
          (() => {
            const c = blog();
            scenario.change(c);
            return c;
          })(),
        ).config,
        undefined,
      );
    });
  }

  it('reports each problem once: a bad field type gives one problem, not one per rule', () => {
    const problems = problemsOf((c) => (fields(c).title.type = 'strng'));
    assert.equal(problems.length, 1);
  });

  it('reports a union mismatch once (the top-level type, not its branch too)', () => {
    const problems = problemsOf((c) => (userRules(c).delete = 1));
    assert.deepEqual(
      problems.map((p) => p.path),
      ['resources.posts.permissions.user.delete'],
    );
  });

  it('reports every problem of a file, not only the first', () => {
    const problems = problemsOf((c) => {
      c.server = { port: -1, prot: 1 };
      c.resources.svc_x = { fields: {} };
      fields(c).id = { type: 'string' };
      fields(c).status.default = 'archived';
      fields(c).category_id.resource = 'nope';
      userRules(c).read.fields = ['nope'];
      userRules(c).read.filter = { title: { equals: 1 } };
    });
    assert.deepEqual(problems.map((p) => p.path).sort(), [
      'resources.posts.fields.category_id.resource',
      'resources.posts.fields.id',
      'resources.posts.fields.status.default',
      'resources.posts.permissions.user.read.fields.0',
      'resources.posts.permissions.user.read.filter.title.equals',
      'resources.svc_x',
      'server.port',
      'server.prot',
    ]);
  });

  it('lists problems in the order of the file, schema and semantic problems interleaved', () => {
    const config = { server: { port: 'x' }, ...blog(), webhooks: { timeoutMs: 0 } };
    fields(config).status.default = 'archived';
    fields(config).views.maxLength = 'long';
    userRules(config).read.fields = ['nope'];
    assert.deepEqual(
      validateConfig(config).problems.map((p) => p.path),
      [
        'server.port',
        'resources.posts.fields.status.default',
        'resources.posts.fields.views.maxLength', // does not apply to integer fields
        'resources.posts.fields.views.maxLength', // must be integer
        'resources.posts.permissions.user.read.fields.0',
        'webhooks.timeoutMs',
      ],
    );
  });

  const VALID: { name: string; change: (config: Record<string, any>) => void }[] = [
    {
      name: 'system fields in filters and checks',
      change: (c) =>
        Object.assign(userRules(c).read, {
          filter: {
            _and: [
              { id: { neq: '01890a5d-ac96-774b-bcce-b302099a8057' } },
              { created_at: { gt: '2024-01-01T00:00:00Z' } },
              { updated_at: { is_not_null: true } },
            ],
          },
        }),
    },
    {
      name: '$role as a filter value',
      change: (c) => (userRules(c).read.filter = { status: { in: ['$role', 'published'] } }),
    },
    {
      name: 'a literal starting with $ that is no variable name',
      change: (c) => (userRules(c).read.filter = { title: { eq: '$5 deal' } }),
    },
    { name: 'fields: "*"', change: (c) => (userRules(c).read.fields = '*') },
    { name: 'an empty fields list', change: (c) => (userRules(c).create.fields = []) },
    { name: 'true for an action', change: (c) => (userRules(c).delete = true) },
    {
      name: 'update with fields, filter, check and preset',
      change: (c) =>
        (userRules(c).update = {
          fields: ['title'],
          filter: { author_id: { eq: '$userId' } },
          check: { status: { eq: 'draft' } },
          preset: { author_id: '$userId' },
        }),
    },
    { name: 'set_null on an optional relation', change: (c) => (fields(c).category_id.onDelete = 'set_null') },
    { name: 'a null default on an optional field', change: (c) => (fields(c).author_id.default = null) },
    {
      name: 'valid defaults of every type',
      change: (c) =>
        Object.assign(fields(c), {
          d1: { type: 'text', default: 'long text' },
          d2: { type: 'number', default: 1.5 },
          d3: { type: 'boolean', default: true },
          d4: { type: 'datetime', default: '2024-01-01T10:00:00.000Z' },
          d5: { type: 'date', default: '2024-02-29' },
          d6: { type: 'uuid', default: '0190c3f0-0000-7000-8000-000000000000' },
          d7: { type: 'email', default: 'a@example.com' },
          d8: { type: 'url', default: 'https://example.com/a' },
          d9: { type: 'json', default: { a: [1, 2] } },
        }),
    },
    {
      name: 'a self relation',
      change: (c) => (fields(c).parent_id = { type: 'relation', resource: 'posts', onDelete: 'cascade' }),
    },
    { name: 'an explicit unique field id', change: (c) => (fields(c).title.id = 'post-title') },
    { name: 'a postgres URL', change: (c) => (c.database = { url: 'postgres://u:p@localhost:5432/db' }) },
    { name: 'a $schema hint for editors', change: (c) => (c.$schema = './schema/svc.config.schema.json') },
    {
      name: 'CORS origins * and with a port',
      change: (c) => (c.server = { cors: { origins: ['*', 'https://app.example.com:8443'] } }),
    },
    {
      name: 'a name of 63 characters',
      change: (c) => (c.resources[`a${'b'.repeat(62)}`] = { fields: { [`c${'d'.repeat(62)}`]: { type: 'text' } } }),
    },
  ];
  for (const scenario of VALID) {
    it(`accepts ${scenario.name}`, () => {
      assert.deepEqual(problemsOf(scenario.change), []);
    });
  }

  it('fills onDelete: restrict on relations that leave it out', () => {
    const { config } = validateConfig(blog());
    assert.equal(config?.resources.posts?.fields.category_id?.onDelete, 'restrict');
    assert.equal(config?.resources.posts?.fields.title?.onDelete, undefined);
  });

  it('fills resource defaults: enabled, no soft delete, no permissions', () => {
    const { config } = validateConfig(blog());
    const categories = config?.resources.categories;
    assert.equal(categories?.enabled, true);
    assert.equal(categories?.enableSoftDelete, false);
    assert.deepEqual(categories?.permissions, {});
  });

  it('drops the $schema editor hint from the config', () => {
    const config = blog();
    config.$schema = 'x.json';
    assert.equal('$schema' in (validateConfig(config).config ?? {}), false);
  });

  it('leaves its input as it was', () => {
    const input = blog();
    const before = structuredClone(input);
    validateConfig(input);
    assert.deepEqual(input, before);
    assert.equal(Object.isFrozen(input), false);
  });

  it('returns a deep-frozen config', () => {
    const { config } = validateConfig(blog());
    assert.ok(config);
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.server.cors.origins));
    assert.ok(Object.isFrozen(config.resources.posts?.fields.title));
    assert.ok(Object.isFrozen(config.resources.posts?.permissions?.user?.read));
    assert.throws(() => {
      (config.server as { port: number }).port = 1;
    }, TypeError);
    assert.throws(() => {
      (config.resources as Record<string, unknown>).extra = {};
    }, TypeError);
  });

  it('says a config that is not an object is not one', () => {
    for (const raw of [null, [], 'text', 3]) {
      assert.deepEqual(validateConfig(raw).problems, [
        { path: '', message: 'the config must be an object (a YAML mapping)' },
      ]);
    }
  });

  it('reads interpolated text as a number or boolean only where marked coercible', () => {
    const raw = { server: { port: '8080', publicMetrics: 'true', host: '127.0.0.1' } };
    const coercible = new Set(['/server/port', '/server/publicMetrics', '/server/host']);
    const { config, problems } = validateConfig(raw, { coercible });
    assert.deepEqual(problems, []);
    assert.equal(config?.server.port, 8080);
    assert.equal(config?.server.publicMetrics, true);
    assert.equal(config?.server.host, '127.0.0.1');
    assert.deepEqual(
      validateConfig(raw).problems.map((p) => p.path),
      ['server.port', 'server.publicMetrics'],
    );
  });

  it('treats an empty interpolated number as absent, so the default applies', () => {
    const { config } = validateConfig({ server: { port: '' } }, { coercible: new Set(['/server/port']) });
    assert.equal(config?.server.port, 3000);
  });

  it('refuses interpolated text that is no number where a number goes', () => {
    const { problems } = validateConfig({ server: { port: '80a' } }, { coercible: new Set(['/server/port']) });
    assert.deepEqual(problems, [{ path: 'server.port', message: 'must be integer' }]);
  });
});

describe('filter operators per field type', () => {
  it('refuses an operator that does not apply to the field type, at its path', () => {
    const { problems } = validateConfig({
      resources: {
        notes: {
          fields: { at: { type: 'datetime' }, flag: { type: 'boolean' }, text: { type: 'string' } },
          permissions: {
            user: {
              read: { filter: { _or: [{ at: { like: '2024%' } }, { flag: { gt: true } }, { text: { ilike: 'a%' } }] } },
            },
          },
        },
      },
    });
    assert.deepEqual(problems.map((p) => p.path).sort(), [
      'resources.notes.permissions.user.read.filter._or.0.at.like',
      'resources.notes.permissions.user.read.filter._or.1.flag.gt',
    ]);
  });
});
