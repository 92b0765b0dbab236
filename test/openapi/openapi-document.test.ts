// The OpenAPI 3.1 document: valid by the official schema, complete for every enabled resource, and
// in agreement with the code it describes (the list-query parser, the error renderer, the catalogue).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { buildOpenApiDocument } from '../../src/http/openapi/openapi-document.ts';
import { ERROR_CATALOGUE } from '../../src/errors/error-catalogue.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { errorDocument } from '../../src/errors/error-document.ts';
import { listDocument, recordDocument } from '../../src/http/documents/resource-document.ts';
import { definitionObject } from '../../src/http/documents/definition-document.ts';
import { LIST_OPERATORS, parseListQuery } from '../../src/query/parse-list-query.ts';
import { SYSTEM_FIELDS, type Resource } from '../../src/resources/resource.ts';
import { uuidField } from '../../src/resources/field-types/uuid-field.ts';
import { datetimeField } from '../../src/resources/field-types/datetime-field.ts';
import { ResourceRegistry } from '../../src/resources/resource-registry.ts';
import { testConfig } from '../helpers/test-config.ts';
import { ENABLED, FIXTURE_RESOURCES, fixtureRegistry, strictAjv } from './openapi-fixtures.ts';

/** The account endpoints that act for the signed-in user (cookie or session bearer token). */
const SIGNED_IN_ACCOUNT_PATHS = new Set([
  '/auth/change-password',
  '/auth/change-email',
  '/auth/delete-user',
  '/auth/delete-user/callback',
  '/auth/list-sessions',
  '/auth/revoke-session',
  '/auth/revoke-sessions',
  '/auth/revoke-other-sessions',
]);

type Json = Record<string, unknown>;

const JSON_API = 'application/vnd.api+json';
/** Per admin path and method: success status, its document schema (null: no body), error statuses. */
const ADMIN_OPERATIONS: Record<string, Record<string, [string, string | null, string[]]>> = {
  '/admin/roles': { get: ['200', 'AdminRoleListDocument', ['400', '401', '403', '406', '500']] },
  '/admin/resources': { get: ['200', 'ResourceDefinitionListDocument', ['400', '401', '403', '406', '500']] },
  '/admin/resources/{name}': { get: ['200', 'ResourceDefinitionDocument', ['400', '401', '403', '404', '406', '500']] },
  '/admin/resources/{name}/deleted': {
    get: ['200', 'AdminDeletedRecordListDocument', ['400', '401', '403', '404', '406', '500']],
  },
  '/admin/resources/{name}/deleted/{id}/restore': {
    post: ['200', 'AdminRestoredRecordDocument', ['400', '401', '403', '404', '406', '409', '500']],
  },
  '/admin/webhooks': {
    post: ['201', 'AdminWebhookCreatedDocument', ['400', '401', '403', '406', '413', '415', '500']],
    get: ['200', 'AdminWebhookListDocument', ['400', '401', '403', '406', '500']],
  },
  '/admin/webhooks/{id}': {
    get: ['200', 'AdminWebhookDocument', ['401', '403', '404', '406', '500']],
    patch: ['200', 'AdminWebhookDocument', ['400', '401', '403', '404', '406', '413', '415', '500']],
    delete: ['204', null, ['401', '403', '404', '406', '500']],
  },
  '/admin/webhooks/{id}/deliveries': {
    get: ['200', 'AdminWebhookDeliveryListDocument', ['400', '401', '403', '404', '406', '500']],
  },
  '/admin/webhooks/{id}/deliveries/{deliveryId}': {
    get: ['200', 'AdminWebhookDeliveryDocument', ['401', '403', '404', '406', '500']],
  },
  '/admin/webhooks/{id}/deliveries/{deliveryId}/retry': {
    post: ['202', 'AdminWebhookDeliveryDocument', ['400', '401', '403', '404', '406', '409', '413', '415', '500']],
  },
  '/admin/webhooks/{id}/test': {
    post: ['202', 'AdminWebhookDeliveryDocument', ['400', '401', '403', '404', '406', '409', '413', '415', '500']],
  },
  '/admin/users': {
    get: ['200', 'AdminUserListDocument', ['400', '401', '403', '406', '500']],
    post: ['201', 'AdminUserCreatedDocument', ['400', '401', '403', '406', '409', '413', '415', '500']],
  },
  '/admin/users/{id}/password-reset': {
    post: ['202', 'AdminPasswordLinkDocument', ['400', '401', '403', '404', '406', '409', '413', '415', '500']],
  },
  '/admin/users/{id}': {
    get: ['200', 'AdminUserDocument', ['401', '403', '404', '406', '500']],
    patch: ['200', 'AdminUserDocument', ['400', '401', '403', '404', '406', '413', '415', '500']],
    delete: ['204', null, ['401', '403', '404', '406', '500']],
  },
  '/admin/keys': { get: ['200', 'AdminApiKeyListDocument', ['400', '401', '403', '406', '500']] },
  '/admin/keys/{id}': {
    get: ['200', 'AdminApiKeyDocument', ['401', '403', '404', '406', '500']],
    patch: ['200', 'AdminApiKeyDocument', ['400', '401', '403', '404', '406', '413', '415', '500']],
    delete: ['204', null, ['401', '403', '404', '406', '500']],
  },
};

const registry = fixtureRegistry();
const config = testConfig('sqlite::memory:', { resources: FIXTURE_RESOURCES });
const doc = buildOpenApiDocument(registry, config);
const paths = doc.paths as Record<string, Json>;
const components = doc.components as Record<string, Record<string, Json>>;
const schemas = components.schemas!;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const ID = '0190b5a2-7c1e-7d3a-9f00-3c5e2a1b4d6f';
const NOW = '2026-01-02T01:04:05.000Z';

function resolve(node: unknown): Json {
  const ref = (node as Json).$ref;
  if (typeof ref !== 'string') return node as Json;
  let target: unknown = doc;
  for (const part of ref.replace(/^#\//, '').split('/')) target = (target as Json)[part];
  assert.ok(target, `unresolved ${ref}`);
  return target as Json;
}

function operations(): { path: string; method: string; op: Json; params: Json[] }[] {
  return Object.entries(paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => {
      const op = item[method] as Json;
      const params = [...((item.parameters ?? []) as Json[]), ...((op.parameters ?? []) as Json[])].map(resolve);
      return { path, method, op, params };
    }),
  );
}

const listParams = (name: string): Map<string, Json> =>
  new Map(
    operations()
      .find((o) => o.path === `/v1/${name}` && o.method === 'get')!
      .params.filter((p) => p.in === 'query')
      .map((p) => [p.name as string, p]),
  );

const resourceOf = (name: string): Resource => registry.find(name)!;

describe('buildOpenApiDocument', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(doc.openapi, '3.1.0');
  });

  it('is checked by a validator that does reject a broken document', async () => {
    const broken = structuredClone(doc);
    delete ((broken.paths as Record<string, Json>)['/v1/posts']!.get as { responses: Record<string, Json> }).responses[
      '200'
    ]!.description;
    assert.equal((await new Validator().validate(broken)).valid, false);
  });

  it('resolves every $ref', () => {
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (node === null || typeof node !== 'object') return;
      if (typeof (node as Json).$ref === 'string') resolve(node);
      Object.values(node).forEach(walk);
    };
    walk(doc);
  });

  it('is a plain tree, so its YAML form has no anchors and reads back equal', () => {
    const seen = new Set<object>();
    const walk = (node: unknown, at: string): void => {
      if (node === null || typeof node !== 'object') return;
      assert.equal(seen.has(node), false, `shared node at ${at}`);
      seen.add(node);
      for (const [key, value] of Object.entries(node)) walk(value, `${at}/${key}`);
    };
    walk(doc, '#');
    const yaml = stringifyYaml(doc);
    assert.equal(/(^|\s)[&*]a\d/m.test(yaml), false);
    assert.deepEqual(parseYaml(yaml), JSON.parse(JSON.stringify(doc)));
  });

  it('describes every enabled resource, and the disabled one nowhere', () => {
    const resourcePaths = Object.keys(paths).filter(
      (p) => p.startsWith('/v1/') && p !== '/v1/operations' && p !== '/v1/stream',
    );
    const expected = ENABLED.flatMap((n) => [
      `/v1/${n}`,
      `/v1/${n}/{id}`,
      `/v1/${n}/schema`,
      `/v1/${n}/stream`,
      `/v1/${n}/aggregate`,
      `/v1/${n}/{id}/_history`,
    ]);
    // The to-many sides of the fixture's relations (posts.category_id, comments.post_id).
    expected.push('/v1/categories/{id}/posts', '/v1/posts/{id}/comments');
    assert.deepEqual(resourcePaths.sort(), expected.sort());
    assert.equal(JSON.stringify(doc).includes('secrets'), false);
    for (const path of [
      '/token',
      '/me',
      '/me/key',
      '/metrics',
      '/openapi.json',
      '/openapi.yaml',
      '/healthz',
      '/readyz',
    ])
      assert.ok(paths[path], path);
    assert.deepEqual(
      Object.keys(paths)
        .filter((p) => p.startsWith('/admin') && p !== '/admin/reload')
        .sort(),
      Object.keys(ADMIN_OPERATIONS).sort(),
    );
    assert.ok(paths['/admin/reload']!.post, '/admin/reload');
  });

  it("describes each resource's record history: page bounds, its entries, and the record's errors", () => {
    for (const name of ENABLED) {
      const op = paths[`/v1/${name}/{id}/_history`]!.get as Json;
      assert.ok(op, name);
      assert.deepEqual(op.tags, [name]);
      assert.deepEqual(
        Object.keys(op.responses as Json).sort(),
        ['200', '400', '401', '403', '404', '406', '429', '500'],
        name,
      );
      const ok = (op.responses as Record<string, Json>)['200']!;
      assert.equal(
        (((ok.content as Json)[JSON_API] as Json).schema as Json).$ref,
        '#/components/schemas/RecordChangeListDocument',
      );
    }
    const ids = operations()
      .filter((o) => o.path.endsWith('/_history'))
      .map((o) => o.op.operationId);
    assert.equal(new Set(ids).size, ENABLED.length, 'one operationId per resource');
    const limit = operations()
      .find((o) => o.path === '/v1/posts/{id}/_history')!
      .params.find((p) => p.name === '_limit')!.schema as Json;
    assert.deepEqual(limit, { type: 'integer', minimum: 1, maximum: 100, default: 20 });
  });

  it('has the methods and success statuses of spec section 4', () => {
    const statuses = (path: string, method: string) => Object.keys((paths[path]![method] as Json).responses as Json);
    for (const name of ENABLED) {
      assert.ok(statuses(`/v1/${name}`, 'get').includes('200'));
      assert.ok(statuses(`/v1/${name}`, 'post').includes('201'));
      for (const method of ['get', 'put', 'patch']) assert.ok(statuses(`/v1/${name}/{id}`, method).includes('200'));
      assert.ok(statuses(`/v1/${name}/{id}`, 'delete').includes('204'));
      assert.ok(statuses(`/v1/${name}/schema`, 'get').includes('200'));
    }
    assert.ok(statuses('/token', 'post').includes('201'));
  });

  it('describes POST /v1/operations with the atomic media type, its results and its errors', () => {
    const post = paths['/v1/operations']!.post as Json;
    const atomic = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
    assert.ok(((post.requestBody as Json).content as Json)[atomic]);
    const responses = post.responses as Json;
    for (const status of ['200', '204', '400', '413', '415']) assert.ok(responses[status], status);
    assert.match(JSON.stringify(responses['413']), /TOO_MANY_OPERATIONS/);
    assert.match(JSON.stringify(responses['400']), /INVALID_OPERATIONS/);
    const types = ((((doc.components as Json).schemas as Json).AtomicOperationsDocument as Json).properties as Json)[
      'atomic:operations'
    ] as Json;
    assert.match(JSON.stringify(types), /"enum":\[[^\]]*"categories"/);
  });

  it('gives every operation a unique operationId, with readable names', () => {
    const ids = operations().map((o) => o.op.operationId as string);
    assert.equal(new Set(ids).size, ids.length, `duplicates in ${ids.join(', ')}`);
    for (const id of [
      'listPosts',
      'createPost',
      'getPost',
      'replacePost',
      'updatePost',
      'deletePost',
      'getPostSchema',
      'streamPosts',
    ]) {
      assert.ok(ids.includes(id), id);
    }
    assert.ok(ids.includes('listCategories') && ids.includes('getCategory'));
    assert.ok(ids.includes('createToken'));
  });

  it('keeps resource names that spell alike apart', () => {
    // `post` after `posts` cannot be `getPost`; `error` cannot take the shared `ErrorDocument`.
    assert.equal((paths['/v1/post/{id}']!.get as Json).operationId, 'getPost2');
    assert.ok(schemas.Post2Document && schemas.PostsDocument);
    const errorGet = ((paths['/v1/error/{id}']!.get as Json).responses as Record<string, Json>)['200']!;
    const errorSchemaRef = ((errorGet.content as Json)['application/vnd.api+json'] as Json).schema as Json;
    assert.notEqual(errorSchemaRef.$ref, '#/components/schemas/ErrorDocument');
    assert.ok((schemas.ErrorDocument!.required as string[]).includes('errors'));
  });

  it('never repeats a parameter within an operation', () => {
    for (const { path, method, params } of operations()) {
      const keys = params.map((p) => `${p.in as string}:${p.name as string}`);
      assert.equal(new Set(keys).size, keys.length, `${method} ${path}`);
    }
  });

  it('secures /v1 with the bearer scheme, /admin with the admin token, and leaves the rest public', () => {
    const bearer = components.securitySchemes!.bearer as Json;
    assert.deepEqual([bearer.type, bearer.scheme], ['http', 'bearer']);
    const admin = components.securitySchemes!.adminToken as Json;
    assert.deepEqual([admin.type, admin.scheme], ['http', 'bearer']);
    for (const { path, op } of operations()) {
      const security = op.security as Json[];
      if (path.startsWith('/v1/')) assert.deepEqual(security[0], { bearer: [] }, path);
      else if (path.startsWith('/admin/')) assert.deepEqual(security, [{ adminToken: [] }], path);
      else if (path === '/me') assert.deepEqual(security, [{ bearer: [] }, { adminToken: [] }], path);
      else if (path === '/auth/get-session' || path === '/auth/sign-out')
        assert.deepEqual(security, [{ sessionCookie: [] }, { sessionToken: [] }, {}], path);
      else if (path === '/me/key') assert.deepEqual(security, [{ bearer: [] }], path);
      else if (path === '/token') assert.deepEqual(security, [{}, { sessionToken: [] }, { sessionCookie: [] }], path);
      else if (SIGNED_IN_ACCOUNT_PATHS.has(path))
        assert.deepEqual(security, [{ sessionCookie: [] }, { sessionToken: [] }], path);
      else if (path === '/metrics') assert.deepEqual(security, [{ adminToken: [] }], path);
      else assert.deepEqual(security, [], path);
    }
  });

  it('describes the admin resource endpoints with their responses', () => {
    const list = paths['/admin/resources']!.get as Json;
    const one = paths['/admin/resources/{name}']!.get as Json;
    assert.deepEqual([list.operationId, one.operationId], ['listResourceDefinitions', 'getResourceDefinition']);
    assert.deepEqual(Object.keys(list.responses as Json).sort(), ['200', '400', '401', '403', '406', '500']);
    assert.deepEqual(Object.keys(one.responses as Json).sort(), ['200', '400', '401', '403', '404', '406', '500']);
    const body = (((one.responses as Record<string, Json>)['200']!.content as Json)['application/vnd.api+json'] as Json)
      .schema as Json;
    assert.equal(body.$ref, '#/components/schemas/ResourceDefinitionDocument');
  });

  it('describes every admin endpoint under the admin token, with its success and error responses', () => {
    for (const [path, methods] of Object.entries(ADMIN_OPERATIONS)) {
      assert.deepEqual(METHODS.filter((m) => paths[path]![m]).sort(), Object.keys(methods).sort(), path);
      for (const [method, [success, schema, errors]] of Object.entries(methods)) {
        const op = paths[path]![method] as Json;
        const where = `${method} ${path}`;
        assert.deepEqual(op.security, [{ adminToken: [] }], where);
        assert.deepEqual(op.tags, ['Admin'], where);
        const responses = op.responses as Record<string, Json>;
        assert.deepEqual(Object.keys(responses).sort(), [success, ...errors].sort(), where);
        const content = responses[success]!.content as Json | undefined;
        if (schema === null) assert.equal(content, undefined, where);
        else assert.equal(((content![JSON_API] as Json).schema as Json).$ref, `#/components/schemas/${schema}`, where);
        for (const status of errors) {
          assert.equal(
            (((responses[status]!.content as Json)[JSON_API] as Json).schema as Json).$ref,
            '#/components/schemas/ErrorDocument',
            where,
          );
        }
        const body = op.requestBody as Json | undefined;
        assert.equal(
          body !== undefined,
          method === 'patch' || (method === 'post' && (path === '/admin/webhooks' || path === '/admin/users')),
          where,
        );
        for (const name of (path.match(/\{(\w+)\}/g) ?? []).map((p) => p.slice(1, -1))) {
          assert.ok(
            (op.parameters as Json[]).some((p) => p.in === 'path' && p.name === name),
            `${where}: ${name}`,
          );
        }
      }
    }
  });

  it('documents the admin query parameters and request bodies the routes accept', () => {
    const query = (path: string) =>
      ((paths[path]!.get as Json).parameters as Json[])
        .filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort();
    const page = ['_limit', '_offset', 'page[limit]', 'page[offset]'];
    assert.deepEqual(query('/admin/webhooks'), [...page].sort());
    assert.deepEqual(query('/admin/webhooks/{id}/deliveries'), [...page, 'eventId', 'status'].sort());
    assert.deepEqual(query('/admin/users'), [...page, 'email', 'search'].sort());
    assert.deepEqual(query('/admin/keys'), [...page, 'includeConsole', 'userId'].sort());
    const parameter = (path: string, name: string) =>
      ((paths[path]!.get as Json).parameters as Json[]).find((p) => p.name === name)!.schema as Json;
    assert.deepEqual(parameter('/admin/users', 'search'), { type: 'string', minLength: 1, maxLength: 100 });
    assert.deepEqual(parameter('/admin/keys', 'includeConsole').enum, ['true', 'false']);
    const created = (paths['/admin/users']!.post as Json).responses as Record<string, Json>;
    assert.ok((created['201']!.headers as Json).Location, 'POST /admin/users answers with a Location');
    const bodyOf = (path: string, method: string) =>
      ((((paths[path]![method] as Json).requestBody as Json).content as Json)['application/json'] as Json)
        .schema as Json;
    assert.equal(bodyOf('/admin/webhooks', 'post').$ref, '#/components/schemas/AdminWebhookCreateBody');
    assert.deepEqual(schemas.AdminWebhookCreateBody!.required, ['name', 'url', 'eventPattern']);
    assert.deepEqual(Object.keys(schemas.AdminUserUpdateBody!.properties as Json), [
      'primaryRole',
      'allowedRoles',
      'name',
      'emailVerified',
    ]);
    assert.equal(bodyOf('/admin/users', 'post').$ref, '#/components/schemas/AdminUserCreateBody');
    assert.deepEqual(schemas.AdminUserCreateBody!.required, ['email']);
    assert.deepEqual(Object.keys(schemas.AdminUserCreateBody!.properties as Json).sort(), [
      'allowedRoles',
      'email',
      'emailVerified',
      'invite',
      'name',
      'password',
      'primaryRole',
    ]);
    for (const field of ['enabled', 'rateLimitMax', 'rateLimitTimeWindow', 'permissions', 'expiresAt', 'remaining']) {
      assert.ok(Object.hasOwn(schemas.AdminApiKeyUpdateBody!.properties as Json, field), field);
    }
    // The signing secret is only in the create answer.
    assert.ok(Object.hasOwn(schemas.AdminWebhookCreatedAttributes!.properties as Json, 'secret'));
    assert.equal(Object.hasOwn(schemas.AdminWebhookAttributes!.properties as Json, 'secret'), false);
  });

  it('keeps resource names from taking the admin schema names', () => {
    const resources = {
      admin_webhook: { fields: { note: { type: 'string' } } },
      admin_user: { fields: { note: { type: 'string' } } },
    } as const;
    const clashing = buildOpenApiDocument(
      new ResourceRegistry({ resources }),
      testConfig('sqlite::memory:', { resources }),
    );
    const clashingSchemas = (clashing.components as Record<string, Record<string, Json>>).schemas!;
    assert.ok(clashingSchemas.AdminWebhook2Document && clashingSchemas.AdminUser2Document);
    assert.deepEqual(
      (clashingSchemas.AdminUserDocument!.properties as Record<string, Json>).data!.$ref,
      '#/components/schemas/AdminUser',
    );
  });

  it('documents every list query parameter of spec 4.1', () => {
    const params = listParams('posts');
    assert.deepEqual(params.get('_limit')!.schema, { type: 'integer', minimum: 1, maximum: 1000, default: 50 });
    assert.deepEqual(params.get('_offset')!.schema, { type: 'integer', minimum: 0, default: 0 });
    // The synonyms have the same bounds but no default, so a client that fills in defaults sends one spelling.
    assert.deepEqual(params.get('page[limit]')!.schema, { type: 'integer', minimum: 1, maximum: 1000 });
    assert.deepEqual(params.get('page[offset]')!.schema, { type: 'integer', minimum: 0 });
    const sortKeys = ((params.get('_sort')!.schema as Json).items as Json).enum as string[];
    const sortable = [...SYSTEM_FIELDS, 'title', 'status', 'views', 'published_at'];
    assert.deepEqual(new Set(sortKeys), new Set(sortable.flatMap((f) => [f, `-${f}`])));
    assert.deepEqual(((params.get('fields')!.schema as Json).items as Json).enum, resourceOf('posts').fieldNames);
    for (const name of ['_sort', 'fields'])
      assert.deepEqual([params.get(name)!.style, params.get(name)!.explode], ['form', false]);
  });

  it('documents the keyset page cursors', () => {
    const params = listParams('posts');
    for (const name of ['page[after]', 'page[before]']) {
      assert.deepEqual(params.get(name)!.schema, { type: 'string', pattern: '^[A-Za-z0-9_-]*$' }, name);
      assert.match(String(params.get(name)!.description), /cursor/);
    }
  });

  it('has a filter parameter for every field, system ones included, and every list operator its type allows', () => {
    for (const name of ENABLED) {
      const resource = resourceOf(name);
      const params = listParams(name);
      for (const field of [...SYSTEM_FIELDS, ...resource.fieldNames]) {
        const allowed = (resource.fields.get(field)?.type ?? (field === 'id' ? uuidField : datetimeField)).operators;
        assert.equal(params.has(field), allowed.has('eq'), `${name}: ${field}`);
        for (const op of LIST_OPERATORS) {
          const paramName = `${field}__${op}`;
          if (resource.fields.has(paramName)) continue; // that spelling is a field of its own
          assert.equal(params.has(paramName), allowed.has(op), `${name}: ${paramName}`);
        }
      }
    }
    const posts = listParams('posts');
    const ops = (field: string) => [...LIST_OPERATORS].filter((op) => posts.has(`${field}__${op}`));
    assert.deepEqual(ops('title'), [...LIST_OPERATORS]);
    assert.deepEqual(ops('views'), ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'is_null', 'is_not_null']);
    assert.deepEqual(ops('published'), ['eq', 'neq', 'in', 'nin', 'is_null', 'is_not_null']);
    assert.deepEqual(ops('tags'), ['is_null', 'is_not_null']);
    assert.deepEqual(ops('created_at'), ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'is_null', 'is_not_null']);
    assert.deepEqual(ops('id'), [...LIST_OPERATORS]);
    assert.ok(posts.has('title') && posts.has('id') && !posts.has('tags'), 'bare name = eq, only where eq applies');
    assert.ok(
      !posts.has('title__contains') && !posts.has('title__regex'),
      'permission-only operators are not list filters',
    );
    assert.deepEqual(posts.get('views__in')!.schema, { type: 'array', items: { type: 'integer' } });
    assert.deepEqual([posts.get('views__in')!.style, posts.get('views__in')!.explode], ['form', false]);
    assert.deepEqual(posts.get('status')!.schema, { type: 'string', enum: ['draft', 'published'] });
    assert.deepEqual(posts.get('published_at__gte')!.schema, { type: 'string', format: 'date-time' });
  });

  it('names a field spelled like a filter once, as that field', () => {
    const comments = listParams('comments');
    assert.deepEqual(comments.get('score__gt')!.schema, { type: 'string' });
    assert.ok(comments.has('score__gte') && comments.has('score__eq'));
  });

  it('documents only filters, sorts and fields that the list-query parser accepts', () => {
    const sample = (schema: Json): string => {
      if (schema.type === 'array') return `${sample(schema.items as Json)},${sample(schema.items as Json)}`;
      if (Array.isArray(schema.enum)) return String(schema.enum[0]);
      const byFormat: Record<string, string> = {
        uuid: ID,
        'date-time': NOW,
        date: '2026-01-02',
        email: 'a@b.co',
        uri: 'https://e.com',
      };
      if (typeof schema.format === 'string' && byFormat[schema.format]) return byFormat[schema.format]!;
      return (
        ({ integer: '3', number: '1.5', boolean: 'true' } as Record<string, string>)[schema.type as string] ?? 'x%'
      );
    };
    for (const name of ENABLED) {
      const resource = resourceOf(name);
      const readable = new Set(resource.fieldNames);
      for (const [param, spec] of listParams(name)) {
        // `_format` picks the answer's format before the list query is parsed (the export tests cover it).
        if (param === '_format') continue;
        // `_filter` is JSON (its schema under content): a sample tree over every field it lists.
        if (param === '_filter') {
          const tree = (((spec.content as Json)['application/json'] as Json).schema as Json).properties as Json;
          const sampleTree = Object.fromEntries(
            Object.keys(tree)
              .filter((field) => !field.startsWith('_'))
              .map((field) => [field, { is_null: true }]),
          );
          assert.doesNotThrow(() => parseListQuery({ _filter: JSON.stringify(sampleTree) }, resource, readable), name);
          continue;
        }
        const schema = spec.schema as Json;
        // A cursor is only ever one svc wrote: the empty one (the first or last page) stands for them.
        const cursor = param === 'page[after]' || param === 'page[before]';
        const values =
          param === '_sort' || param === 'sort' || param === 'fields'
            ? ((schema.items as Json).enum as string[])
            : cursor
              ? ['']
              : [sample(schema)];
        for (const value of values) {
          assert.doesNotThrow(
            () => parseListQuery({ [param]: value }, resource, readable),
            `${name}: ${param}=${value}`,
          );
        }
      }
    }
    // And the reverse for operators the document leaves out.
    for (const param of ['tags', 'tags__eq', 'published__gt', 'title__contains', 'views__like']) {
      assert.throws(
        () => parseListQuery({ [param]: '1' }, resourceOf('posts'), new Set(resourceOf('posts').fieldNames)),
        param,
      );
    }
  });

  it('documents the stream with its parameters and media type', () => {
    const stream = operations().find((o) => o.path === '/v1/posts/stream')!;
    const names = stream.params.map((p) => p.name);
    for (const name of ['events', 'fields', 'token', 'Last-Event-ID', 'lastEventId'])
      assert.ok(names.includes(name), name);
    const ok = ((stream.op.responses as Json)['200'] as Json).content as Json;
    assert.deepEqual(Object.keys(ok), ['text/event-stream']);
    assert.deepEqual(stream.op.security, [{ bearer: [] }, { queryToken: [] }]);
  });

  it('documents the stream of several resources: the list of enabled resources, per-resource fields and filters', () => {
    const stream = operations().find((o) => o.path === '/v1/stream')!;
    assert.equal(stream.method, 'get');
    const byName = new Map(stream.params.map((p) => [p.name as string, p]));
    for (const name of ['resources', 'events', 'fields', '_filter', 'token', 'Last-Event-ID', 'lastEventId'])
      assert.ok(byName.has(name), name);
    const resources = byName.get('resources')!;
    assert.equal(resources.required, true);
    const enumerated = ((resources.schema as Json).items as Json).enum as string[];
    assert.deepEqual([...enumerated].sort(), [...ENABLED].sort());
    const filter = byName.get('_filter')!;
    assert.equal(filter.style, 'deepObject');
    assert.deepEqual(Object.keys((filter.schema as Json).properties as Json).sort(), [...ENABLED].sort());
    const ok = ((stream.op.responses as Json)['200'] as Json).content as Json;
    assert.deepEqual(Object.keys(ok), ['text/event-stream']);
    assert.deepEqual(stream.op.security, [{ bearer: [] }, { queryToken: [] }]);
    const responses = stream.op.responses as Json;
    for (const status of ['400', '401', '403', '404', '429']) assert.ok(responses[status], status);
  });

  it('leaves out the query token where the config does not allow it', () => {
    const strict = buildOpenApiDocument(
      registry,
      testConfig('sqlite::memory:', {
        resources: FIXTURE_RESOURCES,
        stream: { ...config.stream, allowQueryToken: false },
      }),
    );
    const text = JSON.stringify(strict);
    assert.equal(text.includes('queryToken'), false);
    assert.equal(((strict.components as Json).parameters as Json).StreamToken, undefined);
    assert.equal(text.includes('StreamToken'), false);
  });

  it('answers errors as application/vnd.api+json ErrorDocuments with the statuses that apply', () => {
    const statuses = (path: string, method: string) =>
      Object.keys((paths[path]![method] as Json).responses as Json).filter((s) => s >= '400');
    // 406 NOT_ACCEPTABLE: every operation answering JSON:API documents negotiates Accept.
    assert.deepEqual(statuses('/v1/posts', 'get'), ['400', '401', '403', '406', '429', '500']);
    // 409 and 422: an Idempotency-Key still in use, or used for another request.
    assert.deepEqual(statuses('/v1/posts', 'post'), [
      '400',
      '401',
      '403',
      '406',
      '409',
      '413',
      '415',
      '422',
      '429',
      '500',
    ]);
    // 400: a bad `include` or `fields[<type>]`.
    assert.deepEqual(statuses('/v1/posts/{id}', 'get'), ['400', '401', '403', '404', '406', '429', '500']);
    assert.deepEqual(statuses('/v1/posts/{id}/comments', 'get'), ['400', '401', '403', '404', '406', '429', '500']);
    // 412 PRECONDITION_FAILED: If-Match names no current tag.
    assert.deepEqual(statuses('/v1/posts/{id}', 'patch'), [
      '400',
      '401',
      '403',
      '404',
      '406',
      '409',
      '412',
      '413',
      '415',
      '429',
      '500',
    ]);
    // 409 CONFLICT: the record is still referenced by a relation with onDelete: restrict.
    assert.deepEqual(statuses('/v1/posts/{id}', 'delete'), ['401', '403', '404', '406', '409', '412', '429', '500']);
    // 429 RATE_LIMITED: the login throttle (auth.loginThrottle), on by default.
    assert.deepEqual(statuses('/token', 'post'), ['400', '401', '403', '409', '413', '415', '422', '429', '500']);
    // The identity endpoints answer with the identity component's own errors too (below).
    for (const { op } of operations().filter((o) => !o.path.startsWith('/auth/'))) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        if (status < '400') continue;
        const content = response.content as Json;
        assert.deepEqual(content, {
          'application/vnd.api+json': { schema: { $ref: '#/components/schemas/ErrorDocument' } },
        });
      }
    }
    const unauthorized = ((paths['/v1/posts']!.get as Json).responses as Record<string, Json>)['401']!;
    assert.match(unauthorized.description as string, /INVALID_API_KEY/);
    assert.ok((unauthorized.headers as Json)['WWW-Authenticate']);
  });

  it('describes conditional requests: ETag on reads and updates, If-None-Match and 304 on reads, If-Match and 412 on writes', () => {
    const operation = (path: string, method: string) => paths[path]![method] as Json;
    const parameterRefs = (op: Json) => ((op.parameters ?? []) as Json[]).map((parameter) => parameter.$ref);
    const responses = (op: Json) => op.responses as Record<string, Json>;
    const ETAG = { $ref: '#/components/headers/ETag' };
    for (const [path, method] of [
      ['/v1/posts', 'get'],
      ['/v1/posts/{id}', 'get'],
    ] as const) {
      const op = operation(path, method);
      assert.ok(parameterRefs(op).includes('#/components/parameters/IfNoneMatch'), `${method} ${path}`);
      assert.deepEqual((responses(op)['200']!.headers as Json).ETag, ETAG);
      const notModified = responses(op)['304']!;
      assert.equal(notModified.content, undefined, '304 has no body');
      assert.deepEqual((notModified.headers as Json).ETag, ETAG);
    }
    for (const method of ['put', 'patch', 'delete']) {
      const op = operation('/v1/posts/{id}', method);
      assert.ok(parameterRefs(op).includes('#/components/parameters/IfMatch'), method);
      assert.match(responses(op)['412']!.description as string, /`PRECONDITION_FAILED`/);
      if (method !== 'delete') assert.deepEqual((responses(op)['200']!.headers as Json).ETag, ETAG);
    }
    const components = doc.components as Json;
    assert.equal(((components.parameters as Json).IfMatch as Json).name, 'If-Match');
    assert.equal(((components.parameters as Json).IfNoneMatch as Json).name, 'If-None-Match');
    assert.ok((components.headers as Json).ETag);
  });

  it('lists EMAIL_NOT_VERIFIED for /token only when verification is required', () => {
    const verifying = buildOpenApiDocument(
      registry,
      testConfig('sqlite::memory:', {
        resources: FIXTURE_RESOURCES,
        auth: { ...config.auth, requireEmailVerification: true },
      }),
    );
    const token = (verifying.paths as Record<string, Json>)['/token']!.post as Json;
    assert.match((token.responses as Record<string, Json>)['403']!.description as string, /EMAIL_NOT_VERIFIED/);
  });

  it('describes the identity endpoints a user calls, their errors in both forms, and social sign-in only when on', async () => {
    const identity = operations().filter((o) => o.path.startsWith('/auth/'));
    assert.deepEqual(identity.map((o) => `${o.method} ${o.path}`).sort(), [
      'get /auth/delete-user/callback',
      'get /auth/get-session',
      'get /auth/list-sessions',
      'get /auth/methods',
      'get /auth/reset-password/{token}',
      'get /auth/verify-email',
      'post /auth/change-email',
      'post /auth/change-password',
      'post /auth/delete-user',
      'post /auth/request-password-reset',
      'post /auth/reset-password',
      'post /auth/revoke-other-sessions',
      'post /auth/revoke-session',
      'post /auth/revoke-sessions',
      'post /auth/send-verification-email',
      'post /auth/sign-in/email',
      'post /auth/sign-out',
      'post /auth/sign-up/email',
    ]);
    for (const { path, method, op } of identity) {
      assert.deepEqual(op.tags, ['Users'], path);
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        if (status < '400') continue;
        const content = response.content as Record<string, Json>;
        assert.ok(Object.keys(content).length > 0, `${method} ${path} ${status}`);
        for (const [mediaType, { schema }] of Object.entries(content)) {
          const expected = mediaType === 'application/json' ? 'IdentityError' : 'ErrorDocument';
          assert.equal(
            (schema as Json).$ref,
            `#/components/schemas/${expected}`,
            `${method} ${path} ${status} ${mediaType}`,
          );
        }
      }
    }
    const signIn = (paths['/auth/sign-in/email']!.post as Json).responses as Record<string, Json>;
    assert.match(signIn['401']!.description as string, /INVALID_EMAIL_OR_PASSWORD/);
    // The login throttle's 429 is svc's own JSON:API error; the identity component's limiter answers plain JSON.
    assert.deepEqual(Object.keys(signIn['429']!.content as Json).sort(), [
      'application/json',
      'application/vnd.api+json',
    ]);
    assert.equal(JSON.stringify(doc).includes('sign-in/social'), false);
    assert.equal(schemas.SignInSocialBody, undefined);

    const social = buildOpenApiDocument(
      registry,
      testConfig('sqlite::memory:', {
        resources: FIXTURE_RESOURCES,
        auth: {
          ...config.auth,
          basePath: '/identity',
          social: { github: { clientId: 'id', clientSecret: 'secret' }, google: { clientId: 'id' } },
        },
      }),
    );
    const socialPaths = social.paths as Record<string, Json>;
    assert.ok(socialPaths['/identity/sign-in/social']!.post && socialPaths['/identity/sign-up/email']!.post);
    const callback = socialPaths['/identity/callback/{provider}']!.get as Json;
    const provider = (callback.parameters as Json[]).find((p) => p.name === 'provider')!;
    assert.deepEqual((provider.schema as Json).enum, ['github'], 'google has no secret, so it is off');
    const result = await new Validator().validate(social);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  });

  it('says where the API is and who answers for it, and defines every tag it uses', () => {
    assert.deepEqual(doc.servers, [{ url: '/', description: 'This server' }]);
    const published = buildOpenApiDocument(
      registry,
      testConfig('sqlite::memory:', {
        resources: FIXTURE_RESOURCES,
        auth: { ...config.auth, baseUrl: 'https://api.example.com/' },
      }),
    );
    assert.deepEqual(
      (published.servers as Json[]).map((s) => s.url),
      ['https://api.example.com'],
    );
    assert.equal(
      ((published.components as Json).securitySchemes as Record<string, Json>).sessionCookie!.name,
      '__Secure-svc.session_token',
    );
    assert.ok(((doc.info as Json).contact as Json).name);
    const defined = (doc.tags as Json[]).map((t) => t.name);
    const used = new Set(operations().flatMap((o) => o.op.tags as string[]));
    assert.deepEqual([...used].sort(), [...defined].sort());
    for (const { path, method, op } of operations())
      assert.ok(typeof op.description === 'string' && op.description.length > 0, `${method} ${path}`);
  });

  it('describes /token as the route answers it', () => {
    const token = paths['/token']!.post as Json;
    const created = (token.responses as Record<string, Json>)['201']!;
    assert.equal(((created.headers as Json)['Cache-Control'] as Json) !== undefined, true);
    assert.equal(((created.content as Json)['application/json'] as Json) !== undefined, true);
    assert.equal(schemas.TokenRequest!.additionalProperties, false);
    assert.deepEqual(schemas.TokenResponse!.required, [
      'key',
      'id',
      'name',
      'start',
      'prefix',
      'expiresAt',
      'permissions',
    ]);
  });

  it('enumerates every catalogued error code in ErrorDocument', () => {
    const errorObject = ((schemas.ErrorDocument!.properties as Json).errors as Json).items as Json;
    const code = (errorObject.properties as Json).code as Json;
    assert.deepEqual(code.enum, Object.keys(ERROR_CATALOGUE));
  });

  it('has the component schemas of every resource', () => {
    for (const base of ['Posts', 'Categories', 'Comments', 'Post2', 'Error2']) {
      for (const suffix of [
        'Attributes',
        'Resource',
        'Document',
        'ListDocument',
        'CreateBody',
        'ReplaceBody',
        'PatchBody',
      ]) {
        assert.ok(schemas[`${base}${suffix}`], `${base}${suffix}`);
      }
    }
  });

  it('requires the right fields in bodies and attributes', () => {
    // `status` and `views` have defaults, so a caller may omit them even when required.
    assert.deepEqual(schemas.PostsCreateBody!.required, ['title', 'published']);
    assert.deepEqual(schemas.PostsReplaceBody!.required, ['title', 'published']);
    assert.equal(schemas.PostsPatchBody!.required, undefined);
    assert.deepEqual(schemas.CommentsCreateBody!.required, ['post_id', 'body']);
    assert.deepEqual(schemas.CategoriesCreateBody!.required, ['name', 'slug']);
    for (const suffix of ['CreateBody', 'ReplaceBody', 'PatchBody', 'Attributes']) {
      assert.equal(schemas[`Posts${suffix}`]!.additionalProperties, false, suffix);
    }
    assert.deepEqual(schemas.PostsAttributes!.required, ['created_at', 'updated_at']);
    assert.equal((schemas.PostsPatchBody!.properties as Record<string, Json>).status!.default, undefined);
    assert.equal((schemas.PostsCreateBody!.properties as Record<string, Json>).status!.default, 'draft');
    assert.equal((schemas.PostsCreateBody!.properties as Json).id, undefined, 'system fields are not writable');
  });

  describe('component schemas, compiled with strict Ajv 2020', () => {
    // Each component gets its own $id so that `#/components/schemas/X` references can point at it.
    const base = 'https://svc.test/components/';
    const ajv = strictAjv();
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (node === null || typeof node !== 'object') return node;
      return Object.fromEntries(
        Object.entries(node).map(([k, v]) =>
          k === '$ref' && typeof v === 'string' ? [k, v.replace('#/components/schemas/', base)] : [k, rewrite(v)],
        ),
      );
    };
    for (const [name, schema] of Object.entries(schemas))
      ajv.addSchema({ ...(rewrite(schema) as Json), $id: `${base}${name}` });
    const check = (name: string, value: unknown) => {
      const validate = ajv.getSchema(`${base}${name}`)!;
      return { ok: validate(value) as boolean, errors: JSON.stringify(validate.errors) };
    };
    const record = (attributes: Json) => ({ type: 'posts', id: ID, attributes, links: { self: `/v1/posts/${ID}` } });
    const attributes = { title: 'Hi', published: true, status: 'draft', tags: [1], created_at: NOW, updated_at: NOW };

    it('accepts a list document as docs/records.md shapes it', () => {
      const page = {
        data: [record(attributes), record({ title: 'Only', created_at: NOW, updated_at: NOW })],
        meta: { total: 7 },
        links: {
          self: '/v1/posts?page[offset]=2&page[limit]=2',
          first: '/v1/posts?page[offset]=0&page[limit]=2',
          prev: '/v1/posts?page[offset]=0&page[limit]=2',
        },
      };
      const result = check('PostsListDocument', page);
      assert.ok(result.ok, result.errors);
      assert.equal(check('PostsListDocument', { ...page, meta: {} }).ok, false);
      assert.equal(check('PostsDocument', { data: { ...record(attributes), type: 'comments' } }).ok, false);
      assert.equal(
        check('PostsDocument', { data: record({ ...attributes, id: ID }) }).ok,
        false,
        'id is not an attribute',
      );
    });

    it('accepts the documents the service renders (http/documents/resource-document.ts)', () => {
      const posts = resourceOf('posts');
      const stored = {
        id: ID,
        title: 'Hi',
        published: true,
        views: 3,
        tags: { a: [1] },
        created_at: NOW,
        updated_at: NOW,
      };
      const query = parseListQuery(
        { fields: 'title,views,tags', views__gte: '1', _sort: '-views' },
        posts,
        new Set(posts.fieldNames),
      );
      const page = listDocument(posts, [stored, { ...stored, title: 'Two' }], query.fields ?? posts.fieldNames, 12, {
        ...query,
        offset: 2,
        limit: 2,
      });
      assert.deepEqual(Object.keys(page.links).sort(), ['first', 'last', 'next', 'prev', 'self']);
      const listed = check('PostsListDocument', page);
      assert.ok(listed.ok, listed.errors);
      const keyset = parseListQuery({ _sort: '-views', 'page[after]': '' }, posts, new Set(posts.fieldNames));
      const keysetPage = listDocument(posts, [stored], posts.fieldNames, 12, keyset, { more: true });
      assert.deepEqual(Object.keys(keysetPage.links).sort(), ['first', 'last', 'next', 'self']);
      const keysetListed = check('PostsListDocument', keysetPage);
      assert.ok(keysetListed.ok, keysetListed.errors);
      const single = check('PostsDocument', recordDocument(posts, stored, posts.fieldNames));
      assert.ok(single.ok, single.errors);
    });

    it('describes meta.can on a record: both rights, booleans, nothing else', () => {
      const can = (value: unknown) => check('PostsDocument', { data: { ...record(attributes), meta: { can: value } } });
      const given = can({ update: true, delete: false });
      assert.ok(given.ok, given.errors);
      assert.equal(can({ update: true }).ok, false, 'both rights');
      assert.equal(can({ update: 'yes', delete: false }).ok, false, 'booleans');
      assert.equal(can({ update: true, delete: true, read: true }).ok, false, 'only update and delete');
    });

    it('accepts the record changes the history renders', () => {
      const change = {
        type: 'record-changes',
        id: ID,
        attributes: {
          resource: 'posts',
          recordId: ID,
          kind: 'updated',
          at: NOW,
          actor: { userId: null, role: 'admin' },
          fields: ['title'],
          changes: { title: { old: 'Hi', new: 'Hello' } },
        },
      };
      const page = {
        data: [change],
        meta: { total: 1, retainedSince: NOW },
        links: { self: `/v1/posts/${ID}/_history?page[offset]=0&page[limit]=20` },
      };
      const result = check('RecordChangeListDocument', page);
      assert.ok(result.ok, result.errors);
      assert.equal(check('RecordChangeListDocument', { ...page, meta: { total: 1 } }).ok, false, 'retainedSince');
      const kind = { ...change, attributes: { ...change.attributes, kind: 'renamed' } };
      assert.equal(check('RecordChangeListDocument', { ...page, data: [kind] }).ok, false, 'kind');
      const side = { ...change, attributes: { ...change.attributes, changes: { title: { before: 'Hi' } } } };
      assert.equal(check('RecordChangeListDocument', { ...page, data: [side] }).ok, false, 'old and new only');
      const restored = { data: { ...record(attributes), links: { self: `/v1/posts/${ID}` } } };
      assert.ok(check('AdminRestoredRecordDocument', restored).ok);
      assert.ok(check('AdminPasswordLinkDocument', { meta: { sentTo: 'ada@example.test' } }).ok);
      assert.equal(check('AdminPasswordLinkDocument', { meta: {} }).ok, false);
      const user = {
        type: 'users',
        id: 'u1',
        attributes: {
          name: 'Ada',
          email: 'ada@example.test',
          emailVerified: false,
          image: null,
          primaryRole: 'user',
          allowedRoles: '["user"]',
          createdAt: NOW,
          updatedAt: NOW,
        },
        links: { self: '/admin/users/u1' },
      };
      assert.ok(check('AdminUserCreatedDocument', { data: user, meta: { invitationSent: true } }).ok);
      assert.equal(check('AdminUserCreatedDocument', { data: user }).ok, false, 'invitationSent');
    });

    it('accepts the error documents the service renders', () => {
      const error = new ApiError('INVALID_RESOURCE_DATA', [
        { detail: "'title' is required", pointer: '/data/attributes/title' },
        { detail: 'Field may not be written', pointer: '/data/attributes/views', code: 'INVALID_FIELDS' },
      ]);
      const result = check('ErrorDocument', errorDocument(error));
      assert.ok(result.ok, result.errors);
      assert.equal(
        check('ErrorDocument', { errors: [{ status: 400, code: 'NOPE', title: 't', detail: 'd' }] }).ok,
        false,
      );
    });

    it('checks request bodies', () => {
      assert.ok(check('PostsCreateBody', { title: 'Hi', published: false }).ok);
      assert.equal(check('PostsCreateBody', { title: 'Hi' }).ok, false);
      assert.equal(check('PostsCreateBody', { title: 'Hi', published: false, id: ID }).ok, false);
      assert.ok(check('PostsPatchBody', { views: 3 }).ok);
      assert.equal(check('PostsPatchBody', { views: -3 }).ok, false);
    });

    it('accepts the resource definitions the admin API renders (http/documents/definition-document.ts)', () => {
      const applied = { version: 3, appliedAt: NOW, source: '/etc/svc/svc.config.yaml' };
      const data = registry.all().map((resource) => definitionObject(resource, applied));
      const listed = check('ResourceDefinitionListDocument', {
        data,
        meta: { total: data.length, definitionsVersion: 3, appliedAt: NOW, appliedFrom: null },
        links: { self: '/admin/resources' },
      });
      assert.ok(listed.ok, listed.errors);
      const single = check('ResourceDefinitionDocument', { data: definitionObject(resourceOf('posts'), null) });
      assert.ok(single.ok, single.errors);
      const unknownAttribute = definitionObject(resourceOf('posts'), null);
      unknownAttribute.attributes.extra = 1;
      assert.equal(check('ResourceDefinitionDocument', { data: unknownAttribute }).ok, false);
    });

    it('checks the /token request and response', () => {
      assert.ok(
        check('TokenRequest', {
          email: 'a@b.co',
          password: 'pw',
          permissions: { posts: { read: ['title'], delete: [] } },
        }).ok,
      );
      assert.equal(
        check('TokenRequest', { email: 'a@b.co', password: 'pw', permissions: { posts: { write: [] } } }).ok,
        false,
      );
      assert.ok(
        check('TokenResponse', {
          key: 'svc_abc',
          id: 'k1',
          name: null,
          start: 'svc_ab',
          prefix: 'svc_',
          expiresAt: null,
          permissions: null,
        }).ok,
      );
      assert.equal(
        check('TokenRequest', { email: 'a@b.co', password: 'pw', role: 'admin' }).ok,
        false,
        'unknown fields are refused',
      );
      assert.ok(
        check('TokenRequest', { email: 'a@b.co', password: 'pw', name: null, expiresIn: null, remaining: 5 }).ok,
      );
      assert.equal(check('TokenRequest', { email: 'a@b.co', password: 'pw', remaining: 0 }).ok, false);
    });
  });
});
