// Each request body is described once: the schema a route checks its body with is the one /openapi.json
// shows for it, so the two cannot drift. Every svc route that takes a body declares how it reads it
// (a start with one that does not fails); this holds the document to those declarations both ways.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { RequestBody } from '../../src/http/bodies/request-body.ts';
import type { BodyRoute } from '../../src/http/bodies/declared-bodies.ts';

type Json = Record<string, unknown>;

const REF_PREFIX = '#/components/schemas/';
const METHODS = ['post', 'put', 'patch'];

/** Fastify's `/admin/webhooks/:id` as OpenAPI's `/admin/webhooks/{id}`. */
const openApiPath = (url: string): string => url.replace(/:([A-Za-z_]+)/g, '{$1}');

/** A plain-JSON copy, as the document is served. */
const asServed = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** The schemas a field's validator is compiled from carry no annotations; the document's do. */
function withoutAnnotations(schema: Json): Json {
  const { description: _d, default: _default, 'x-relation': _relation, ...rest } = schema;
  return rest;
}

describe('request bodies: the schema that checks a body is the one /openapi.json shows', () => {
  let t: TestApp;
  let document: { paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, Json> } };

  before(async () => {
    t = await startTestApp('sqlite');
    const served = await t.request({ method: 'GET', url: '/openapi.json' });
    assert.equal(served.statusCode, 200);
    document = served.json();
  });
  after(async () => {
    await t.close();
  });

  const operationOf = (route: BodyRoute): Json | undefined =>
    document.paths[openApiPath(route.url)]?.[route.method.toLowerCase()];

  it('finds the routes that take a body, each declaring how it is read', () => {
    const schemaBodies = t.app.bodyRoutes.filter((route) => route.body instanceof RequestBody);
    assert.deepEqual(schemaBodies.map((route) => `${route.method} ${route.url}`).sort(), [
      'PATCH /admin/keys/:id',
      'PATCH /admin/users/:id',
      'PATCH /admin/webhooks/:id',
      'POST /admin/users',
      'POST /admin/webhooks',
      'POST /token',
    ]);
  });

  it('shows, for every route with a schema of its own, that schema and the components it refers to', () => {
    for (const route of t.app.bodyRoutes) {
      const body = route.body;
      if (!(body instanceof RequestBody)) continue;
      const operation = operationOf(route);
      assert.ok(operation, `${route.method} ${route.url} is in the document`);
      const content = (operation.requestBody as { content: Record<string, { schema: { $ref: string } }> }).content;
      assert.ok(Object.keys(content).length > 0, `${route.method} ${route.url} shows a request body`);
      for (const [mediaType, { schema }] of Object.entries(content)) {
        assert.equal(schema.$ref, `${REF_PREFIX}${body.name}`, `${route.method} ${route.url} ${mediaType}`);
      }
      assert.deepEqual(document.components.schemas[body.name], asServed(body.schema), body.name);
      for (const [name, component] of Object.entries(body.components)) {
        assert.deepEqual(document.components.schemas[name], asServed(component), `${body.name} refers to ${name}`);
      }
    }
  });

  it('shows no request body for a route that reads none', () => {
    for (const route of t.app.bodyRoutes) {
      if (route.body !== 'none') continue;
      const operation = operationOf(route);
      assert.equal(operation?.requestBody, undefined, `${route.method} ${route.url}`);
    }
  });

  it('shows a request body only where a route reads one', () => {
    const reading = new Set(
      t.app.bodyRoutes
        .filter((route) => route.body !== 'none')
        .map((route) => `${route.method.toLowerCase()} ${openApiPath(route.url)}`),
    );
    // better-auth's endpoints are one catch-all route here, and one operation each in the document.
    const identity = t.app.bodyRoutes.find((route) => route.body === 'identity-component');
    assert.ok(identity);
    const identityPrefix = openApiPath(identity.url).replace(/\*$/, '');
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        if (item[method]?.requestBody === undefined) continue;
        const byResource = path.replace(/^\/v1\/[a-z][a-z0-9_]*(?=\/|$)/, '/v1/{resource}');
        // A file field's raw upload is one route for every field, one path per field in the document.
        const byField = byResource.replace(/^(\/v1\/\{resource\}\/\{id\}\/)[a-z][a-z0-9_]*$/, '$1{related}');
        const known =
          reading.has(`${method} ${path}`) ||
          reading.has(`${method} ${byResource}`) ||
          reading.has(`${method} ${byField}`) ||
          (path.startsWith(identityPrefix) && method === 'post');
        assert.ok(known, `${method.toUpperCase()} ${path} shows a body no route reads`);
      }
    }
  });

  it("shows each record body's fields with the schemas their values are checked against", () => {
    for (const resource of t.ctx.registry.all()) {
      for (const suffix of ['CreateBody', 'ReplaceBody', 'PatchBody']) {
        const name = Object.keys(document.components.schemas).find(
          (schema) => schema.toLowerCase() === `${resource.name.replace(/_/g, '')}${suffix}`.toLowerCase(),
        );
        assert.ok(name, `${resource.name} ${suffix}`);
        const properties = document.components.schemas[name]!.properties as Record<string, Json>;
        assert.deepEqual(Object.keys(properties).sort(), [...resource.fields.keys()].sort());
        for (const field of resource.fields.values()) {
          const shown = withoutAnnotations(properties[field.name]!);
          const checked = withoutAnnotations(asServed(field.type.valueSchema(field.definition)) as Json);
          // A nullable field's schema also takes null; the record service checks null itself.
          if (field.nullable && typeof checked.type === 'string') {
            checked.type = [checked.type, 'null'];
            if (Array.isArray(checked.enum)) checked.enum = [...checked.enum, null];
          }
          assert.deepEqual(shown, checked, `${resource.name}.${field.name} in ${name}`);
        }
      }
    }
  });
});
