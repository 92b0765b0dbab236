// Generators of hostile input: strings that break parsers, SQL, paths and prototypes; query strings,
// JSON bodies and header values built from them. Every size is bounded so a run stays fast.
import fc from 'fast-check';

/** Classic injection attempts: quoting, comments, stacked statements, UNIONs aimed at the canary table. */
export const SQL_INJECTIONS: readonly string[] = [
  "' OR '1'='1",
  "' OR 1=1 --",
  '" OR ""="',
  "') OR ('1'='1",
  '1 OR 1=1',
  '1; DROP TABLE posts; --',
  "'; DROP TABLE posts; --",
  '"; DROP TABLE posts; --',
  "x'); DELETE FROM posts; --",
  "' UNION SELECT secret, secret, secret FROM canary --",
  "' UNION ALL SELECT id, secret, note, secret, secret FROM canary --",
  '1) UNION SELECT secret FROM canary --',
  '(SELECT secret FROM canary LIMIT 1)',
  'title) OR (1=1',
  'title" FROM canary --',
  'id,(select secret from canary)',
  '*',
  'posts.*',
  'canary.secret',
  '1/**/OR/**/1=1',
  "' || (SELECT secret FROM canary) || '",
  "'||pg_sleep(10)--",
  '1; SELECT pg_sleep(10)',
  'randomblob(1000000000)',
  "%' AND 1=0 UNION SELECT secret FROM canary WHERE '%'='",
  "\\'; DROP TABLE posts; --",
  '\u02bc OR 1=1 --',
  '$1',
  '?',
  ':name',
  '-- ',
  '/*',
  "'",
  '"',
  '`',
  ';',
];

/** Strings that have broken parsers, routers and object lookups elsewhere. */
export const SPECIAL_STRINGS: readonly string[] = [
  '',
  ' ',
  '\t',
  '\n',
  '\r\n',
  '\u0000',
  'a\u0000b',
  '%00',
  '%',
  '%%',
  '%zz',
  '%E0%A4%A',
  '_',
  '\\',
  '\\%',
  '%_%',
  '..',
  '../..',
  '../../etc/passwd',
  '.',
  '/',
  '//',
  '%2e%2e',
  '%2F',
  '?',
  '#',
  '&',
  '=',
  '+',
  ',',
  ',,',
  '-',
  '--',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'isPrototypeOf',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1e400',
  '0x10',
  '9007199254740993',
  '-9223372036854775809',
  '1.5',
  '00',
  'null',
  'undefined',
  'true',
  'false',
  '[]',
  '{}',
  '{"$gt":""}',
  '$userId',
  '$role',
  '${USER}',
  '%s%s%n',
  '\ud800',
  '\udfff',
  '\ufeff',
  '\u202e',
  '\u200b',
  'Ω',
  'é',
  'İ',
  'ß',
  '😀',
  '👩‍👩‍👧',
  'ａｄｍｉｎ',
  '0000-01-01',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59-23:59',
  '2026-02-30',
  '2026-01-01T25:00:00Z',
  'stream',
  'schema',
  'posts',
  'canary',
  'categories',
  'id',
  'created_at',
  'deleted_at',
];

/** Text no database stores as sent: U+0000 and lone surrogates, high and low. */
export const UNSTORABLE_CHARACTERS: readonly string[] = ['\u0000', '\ud800', '\udbff', '\udc00', '\udfff'];

/** A string with one unstorable character somewhere in it (start, middle, end), or a pair reversed. */
export const unstorableString: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.string({ maxLength: 12 }), fc.constantFrom(...UNSTORABLE_CHARACTERS), fc.nat()).map(([base, bad, at]) => {
    const i = base.length === 0 ? 0 : at % (base.length + 1);
    return base.slice(0, i) + bad + base.slice(i);
  }),
  // A low surrogate before a high one is two lone surrogates, not a character.
  fc.constantFrom('\ude00\ud83d', 'a\udfff\ud800b', '\u0000\u0000', 'user\u0000', 'posts.title\u0000'),
);

/** A long run of one character, up to `max` long. */
export const longString = (min: number, max: number): fc.Arbitrary<string> =>
  fc
    .tuple(fc.constantFrom('a', 'x', '%', '_', "'", '😀', '\u0000', ','), fc.integer({ min, max }))
    .map(([c, n]) => c.repeat(n));

/** Any hostile string: random code points, graphemes, the tables above, long runs, and mixes of them. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 3, arbitrary: fc.constantFrom(...SQL_INJECTIONS) },
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
  { weight: 1, arbitrary: longString(256, 5000) },
  { weight: 2, arbitrary: unstorableString },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.oneof(fc.constantFrom(...SQL_INJECTIONS, ...SPECIAL_STRINGS), fc.string({ maxLength: 4 })), {
        minLength: 2,
        maxLength: 4,
      })
      .map((parts) => parts.join('')),
  },
);

export const POST_FIELDS = [
  'title',
  'body',
  'status',
  'views',
  'rating',
  'published',
  'published_at',
  'publish_on',
  'external_id',
  'contact',
  'source',
  'tags',
  'author_id',
  'category_id',
] as const;
export const SYSTEM_FIELD_NAMES = ['id', 'created_at', 'updated_at', 'deleted_at'] as const;
export const LIST_OPERATORS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'nin',
  'is_null',
  'is_not_null',
  'like',
  'ilike',
] as const;

/** A field name: a real one, a system one, a prototype key, or anything. */
export const fieldName: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...POST_FIELDS, ...SYSTEM_FIELD_NAMES) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'valueOf',
      'hasOwnProperty',
      'secret',
      'note',
    ),
  },
  { weight: 1, arbitrary: hostileString },
);

export const operatorName: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...LIST_OPERATORS) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'contains',
      'regex',
      'EQ',
      'between',
      '',
      '_',
      '__',
      'eq__eq',
      'constructor',
      '__proto__',
    ),
  },
  { weight: 1, arbitrary: hostileString },
);

/** A value for a field of the given kind of list: plausible values, lists, and hostile strings. */
const filterValue: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'published',
      'draft',
      'Public',
      'Mine',
      '0',
      '1',
      '-1',
      '42',
      '4.5',
      'true',
      'false',
      '2026-01-02',
      '2026-01-02T03:04:05Z',
    ),
  },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.uuid().map(String) },
  {
    weight: 1,
    arbitrary: fc.array(fc.oneof(fc.integer().map(String), hostileString), { maxLength: 6 }).map((v) => v.join(',')),
  },
  { weight: 4, arbitrary: hostileString },
);

const sortValue: fc.Arbitrary<string> = fc.oneof(
  fc
    .array(
      fc.tuple(fc.boolean(), fieldName).map(([desc, f]) => `${desc ? '-' : ''}${f}`),
      { minLength: 1, maxLength: 4 },
    )
    .map((v) => v.join(',')),
  hostileString,
);

const fieldsValue: fc.Arbitrary<string> = fc.oneof(
  fc.array(fieldName, { minLength: 1, maxLength: 5 }).map((v) => v.join(',')),
  hostileString,
);

const pagingValue: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: -5, max: 2000 }).map(String),
  fc.constantFrom(
    '0',
    '1',
    '1000',
    '1001',
    '9007199254740991',
    '9007199254740992',
    '1e3',
    '0x10',
    ' 1',
    '1 ',
    '+1',
    '1.0',
    '-0',
    '',
  ),
  hostileString,
);

/** `page[after]` / `page[before]` values: forged cursors (the shape svc writes, hostile contents), and anything. */
const cursorValue: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('', 'views', '-views', 'title', '-created_at', 'id'),
      fc.array(
        fc.oneof(
          hostileString,
          fc.double(),
          fc.integer(),
          fc.boolean(),
          fc.constant(null),
          fc.constantFrom('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', '2026-01-01T00:00:00Z'),
        ),
        { maxLength: 3 },
      ),
    )
    .map(([sort, values]) => Buffer.from(JSON.stringify([sort, ...values])).toString('base64url')),
  fc.constant(''),
  hostileString,
);

/** One query parameter as [name, value], before encoding. */
export const queryParameter: fc.Arbitrary<[string, string]> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fieldName, filterValue) },
  {
    weight: 4,
    arbitrary: fc.tuple(
      fc.tuple(fieldName, operatorName).map(([f, o]) => `${f}__${o}`),
      filterValue,
    ),
  },
  { weight: 2, arbitrary: fc.tuple(fc.constant('_sort'), sortValue) },
  { weight: 2, arbitrary: fc.tuple(fc.constant('fields'), fieldsValue) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('_limit', '_offset', 'page[limit]', 'page[offset]'), pagingValue) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('page[after]', 'page[before]'), cursorValue) },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constantFrom('_where', '_or', 'page[size]', 'events', 'token', 'lastEventId', 'filter[title]', 'include'),
      hostileString,
    ),
  },
  { weight: 1, arbitrary: fc.tuple(hostileString, hostileString) },
);

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses) is sent as the 3 bytes a careless
 * client would produce (CESU-8): invalid UTF-8 on the wire is part of what the server must survive.
 */
export function encodeComponent(text: string): string {
  return text.replace(/[\s\S]/gu, (char) => {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      const bytes = [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)];
      return bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    }
    return encodeURIComponent(char);
  });
}

/** Text fields every fuzzed role may filter on: any string is a valid value for them. */
export const TEXT_FILTER_FIELDS = ['title', 'body', 'author_id'] as const;

/**
 * A query that is valid but for its values: readable text fields with real operators and hostile values,
 * real sorting, field lists and paging. These reach the SQL, which is where injection would happen.
 */
export const plausibleQuery: fc.Arbitrary<[string, string][]> = fc
  .tuple(
    fc.uniqueArray(
      fc
        .tuple(fc.constantFrom(...TEXT_FILTER_FIELDS), fc.constantFrom(...LIST_OPERATORS, 'eq', 'like', 'ilike'))
        .map(([f, o]) => (o === 'eq' ? f : `${f}__${o}`)),
      { maxLength: 3 },
    ),
    fc.array(hostileString, { minLength: 3, maxLength: 3 }),
    fc.option(fc.constantFrom('title', '-title', '-views,title', 'created_at', '-updated_at,id', 'status,-id'), {
      nil: undefined,
    }),
    fc.option(fc.constantFrom('title', 'title,body', 'views,author_id,status', 'id,created_at'), { nil: undefined }),
    fc.option(fc.tuple(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 0, max: 5 })), { nil: undefined }),
  )
  .map(([names, values, sort, fields, page]) => {
    const params: [string, string][] = names.map((name, i) => [name, values[i] ?? '']);
    if (sort !== undefined) params.push(['_sort', sort]);
    if (fields !== undefined) params.push(['fields', fields]);
    if (page !== undefined) params.push(['_limit', String(page[0])], ['_offset', String(page[1])]);
    return params;
  });

/** Fragments that confuse a query-string parser when inserted unencoded. */
const RAW_QUERY_FRAGMENTS = [
  '',
  '&',
  '&&',
  '=',
  '==',
  'a=%',
  'title=%E0%A4%A',
  'title=%zz',
  '%=1',
  'title',
  'title=a=b',
  '%26=%3D',
  'title=a&title=b',
  '_limit=1&_limit=2',
  'title+=+x',
];

const encodeParams = (params: [string, string][]): string[] =>
  params.map(([name, value]) => `${encodeComponent(name)}=${encodeComponent(value)}`);

/** A whole query string (without `?`): plausible ones, and anything at all with raw fragments mixed in. */
export const queryString: fc.Arbitrary<string> = fc.oneof(
  plausibleQuery.map((params) => encodeParams(params).join('&')),
  fc
    .array(
      fc.oneof(
        { weight: 5, arbitrary: queryParameter.map(([name, value]) => encodeParams([[name, value]])[0]!) },
        { weight: 1, arbitrary: fc.constantFrom(...RAW_QUERY_FRAGMENTS) },
      ),
      { maxLength: 6 },
    )
    .map((parts) => parts.join('&')),
);

/** Keys a hostile body may use: real fields, system columns, prototype keys, anything. */
const bodyKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...POST_FIELDS, 'name', 'description', 'post_id') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      ...SYSTEM_FIELD_NAMES,
      '__proto__',
      'constructor',
      'prototype',
      'secret',
      'data',
      'attributes',
      'type',
    ),
  },
  { weight: 1, arbitrary: hostileString },
);

/** A JSON value of bounded depth and size, with hostile strings, extreme numbers and prototype keys. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    fc.constantFrom(0, -0, 1, -1, 0.5, 1e308, -1e308, 5e-324, 2 ** 53, 2 ** 53 + 2, 2 ** 63, -(2 ** 63), 1e21, 4.5, 42),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(bodyKey, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A body object whose keys lean towards the resource's fields, so validation goes past the first check. */
export const hostileBodyObject: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(bodyKey, hostileJson, {
  maxKeys: 6,
});

/** Raw body texts JSON.stringify cannot produce: broken JSON, prototype keys, duplicates, deep nesting. */
export const RAW_BODIES: readonly string[] = [
  '',
  ' ',
  '{',
  '}',
  '{"title":',
  '{"title":"x"',
  '{"title":"x"}}',
  "{'title':'x'}",
  '{"title":NaN}',
  '{"title":Infinity}',
  '{"title":undefined}',
  '{title:"x"}',
  '{"title":"x",}',
  '[1,]',
  '{"title":"x"} trailing',
  '\ufeff{"title":"x"}',
  '/* c */{"title":"x"}',
  '{"title":"\\ud800"}',
  '{"title":"\\u0000"}',
  '{"title":"a\\u0000b"}',
  '{"tags":{"k":"\\u0000"}}',
  '{"tags":{"\\u0000":1}}',
  '{"title":"\\x41"}',
  '{"__proto__":{"polluted":true},"title":"p"}',
  '{"constructor":{"prototype":{"polluted":true}},"title":"p"}',
  '{"tags":{"__proto__":{"polluted":true}},"title":"p"}',
  '{"title":"a","title":"b"}',
  '{"title":"x","__proto__":null}',
  'null',
  'true',
  '0',
  '"title"',
  '[]',
  '[{"title":"x"}]',
  '{"data":{"attributes":{"title":"x"}}}',
  '{"views":1e400}',
  '{"views":-0}',
  '{"views":9223372036854775808}',
  '{"rating":1e-400}',
  '{"views":1.0}',
  '{"views":"1"}',
  '{"published_at":"0000-01-01T00:00:00Z"}',
  '{"publish_on":"0000-01-01"}',
  '{"published_at":"0001-01-01T00:00:00+01:00"}',
  '{"published_at":"9999-12-31T23:59:59-01:00"}',
];

/** `[0,0,…]` or `{"k0":0,…}` with `count` members inside a field: wide instead of deep. */
export function wide(count: number, field = 'tags', object = false): string {
  const members = Array.from({ length: count }, (_, i) => (object ? `"k${i}":0` : '0')).join(',');
  return `{"${field}":${object ? `{${members}}` : `[${members}]`}}`;
}

/** `[[[…]]]` nested `depth` deep around a value, optionally inside a field. */
export function nested(depth: number, inner = '1', field: string | null = 'tags'): string {
  const value = '['.repeat(depth) + inner + ']'.repeat(depth);
  return field === null ? value : `{"title":"deep","${field}":${value}}`;
}

/** Per resource, fields every role that may write it may set, with values that could pass validation. */
const PLAUSIBLE_FIELDS: Record<string, Record<string, fc.Arbitrary<unknown>>> = {
  posts: {
    title: hostileString,
    body: fc.oneof(hostileString, fc.constant(null)),
    status: fc.constantFrom('draft', 'published'),
  },
  categories: { name: hostileString, description: fc.oneof(hostileString, fc.constant(null)) },
  comments: { body: hostileString, rating: fc.integer({ min: 1, max: 5 }) },
};

/**
 * A body a caller could write but for its values: writable fields with hostile strings in them,
 * sometimes one stray key with a hostile value. These reach the INSERT/UPDATE.
 */
export function plausibleBody(resource: string): fc.Arbitrary<Record<string, unknown>> {
  const fields = PLAUSIBLE_FIELDS[resource] ?? {};
  return fc
    .tuple(
      fc.record(fields, { requiredKeys: Object.keys(fields).slice(0, 1) }),
      fc.oneof(
        { weight: 3, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.tuple(bodyKey, hostileJson) },
      ),
    )
    .map(([body, extra]) => (extra === undefined ? body : { ...body, [extra[0]]: extra[1] }));
}

/** A request body as text for a resource: plausible objects, hostile objects, other JSON, raw oddities, deep nesting. */
export function hostileBodyText(resource: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: plausibleBody(resource).map((body) => JSON.stringify(body)) },
    { weight: 4, arbitrary: hostileBodyObject.map((body) => JSON.stringify(body)) },
    { weight: 1, arbitrary: hostileJson.map((body) => JSON.stringify(body) ?? 'null') },
    { weight: 2, arbitrary: fc.constantFrom(...RAW_BODIES) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('tags', 'title', 'nope'), fc.boolean())
        .map(([depth, field, object]) => nested(depth, object ? '{}' : '1', field)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 1, max: 30_000 }), fc.constantFrom('tags', 'title'), fc.boolean())
        .map(([count, field, object]) => wide(object ? count >> 3 : count, field, object)),
    },
  );
}

/** Header values as HTTP can carry them: visible ASCII, spaces, tabs and obs-text (latin-1), bounded. */
export function headerSafe(value: string): string {
  return value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?').slice(0, 8192);
}

/** A header value: hostile strings made header-safe, long ones, and near-misses of real forms. */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: hostileString.map(headerSafe) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 64 }).map(headerSafe) },
  { weight: 1, arbitrary: longString(1000, 8000).map(headerSafe) },
);

/** Content-Type values: the two accepted, variations of them, and junk. */
export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 24, arbitrary: fc.constant('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'application/vnd.api+json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json;charset=latin1',
    ),
  },
  // JSON:API forbids media type parameters on its type: 415.
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'application/vnd.api+json; charset=utf-8',
      'application/vnd.api+json;ext=bulk',
      'Application/Vnd.Api+Json ; profile="x"',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      undefined,
      '',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      ';;;',
      'application/',
      '*/*',
      'application/json/x',
      'application/jsonx',
    ),
  },
  { weight: 1, arbitrary: headerValue },
);

/** Accept values: absent, usual ones, JSON:API with and without media type parameters, and junk. */
export const acceptHeader: fc.Arbitrary<string | undefined> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      undefined,
      '*/*',
      'application/json',
      'application/vnd.api+json',
      'application/vnd.api+json;q=0.9, */*;q=0.1',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'application/vnd.api+json; ext=bulk',
      'application/vnd.api+json;charset=utf-8, */*',
      'application/vnd.api+json; ext=a, application/vnd.api+json',
      'application/vnd.api+json; profile=x, application/vnd.api+json; ext=y;q=0.5',
      'APPLICATION/VND.API+JSON;x=1',
      ',,;',
      'application/vnd.api+json;',
    ),
  },
  { weight: 1, arbitrary: headerValue },
);

/** Whether every JSON:API entry of an Accept value carries media type parameters (the 406 rule of JSON:API 1.0). */
export function everyJsonApiAcceptModified(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  // Parameters before the weight (`q`) are media type parameters; the weight and what follows are not.
  const modified = (parameters: string[]): boolean => {
    for (const parameter of parameters) if (parameter !== '') return !/^q\s*=/i.test(parameter);
    return false;
  };
  const instances = accept
    .split(',')
    .map((entry) => entry.split(';').map((part) => part.trim()))
    .filter(([type]) => type?.toLowerCase() === 'application/vnd.api+json');
  return instances.length > 0 && instances.every(([, ...parameters]) => modified(parameters));
}

/** A JSON value for the admin API's bodies: plausible members of each, with hostile and unstorable values. */
const adminValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 2, arbitrary: unstorableString },
  {
    weight: 1,
    arbitrary: fc.array(
      fc.oneof(hostileString, unstorableString, fc.constantFrom('posts.title', 'posts.body', 'user', 'editor')),
      { maxLength: 5 },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.dictionary(
      fc.oneof(bodyKey, unstorableString),
      fc.oneof(hostileString, fc.array(fc.oneof(hostileString, unstorableString), { maxLength: 3 })),
      { maxKeys: 3 },
    ),
  },
  { weight: 1, arbitrary: hostileJson },
);

const ADMIN_MEMBERS: Record<string, readonly string[]> = {
  webhooks: ['name', 'url', 'eventPattern', 'fieldIds', 'headers', 'enabled', 'retryConfig'],
  users: ['primaryRole', 'allowedRoles'],
  keys: ['enabled', 'permissions', 'expiresAt', 'rateLimitMax', 'remaining'],
  token: ['email', 'password', 'name', 'metadata', 'permissions', 'expiresIn'],
  auth: ['name', 'email', 'password', 'callbackURL', 'rememberMe'],
};

/** A body for an admin endpoint, /token or /auth: its members with hostile values, valid ones mixed in. */
export function adminBodyText(kind: keyof typeof ADMIN_MEMBERS, valid: Record<string, unknown>): fc.Arbitrary<string> {
  const members = ADMIN_MEMBERS[kind] ?? [];
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .dictionary(
          fc.oneof(
            { weight: 5, arbitrary: fc.constantFrom(...members) },
            { weight: 1, arbitrary: fc.oneof(bodyKey, unstorableString) },
          ),
          adminValue,
          { maxKeys: 4 },
        )
        .map((changes) => JSON.stringify({ ...valid, ...changes })),
    },
    { weight: 1, arbitrary: hostileBodyObject.map((body) => JSON.stringify(body)) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_BODIES) },
  );
}
