// The OpenAPI document describes the envelopes of the two JSON:API request documents with the schemas
// that check them (http/bodies/), so what is refused and what is described cannot drift.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { AtomicOperationsBody } from '../../src/http/bodies/atomic-operations-body.ts';
import { JSON_API_DOCUMENT_NAME, JSON_API_DOCUMENT_SCHEMA } from '../../src/http/bodies/json-api-document-body.ts';

type Json = Record<string, unknown>;

/** A plain-JSON copy, as the document is served. */
const asServed = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('request document envelopes in /openapi.json', () => {
  let t: TestApp;
  let schemas: Record<string, Json>;

  before(async () => {
    t = await startTestApp('sqlite');
    const served = await t.request({ method: 'GET', url: '/openapi.json' });
    assert.equal(served.statusCode, 200);
    schemas = served.json<{ components: { schemas: Record<string, Json> } }>().components.schemas;
  });
  after(async () => {
    await t.close();
  });

  it('shows the schema POST /v1/operations reads its body with, and builds the document on it', () => {
    const route = t.app.bodyRoutes.find((candidate) => candidate.url === '/v1/operations');
    assert.ok(route && route.body instanceof AtomicOperationsBody, 'the route declares its schema reader');
    const reader = route.body;
    assert.deepEqual(schemas[reader.name], asServed(reader.schema));
    assert.deepEqual(schemas.AtomicOperationsDocument!.allOf, [{ $ref: `#/components/schemas/${reader.name}` }]);
  });

  it("shows the envelope every write's document is checked with, and each resource's documents build on it", () => {
    assert.deepEqual(schemas[JSON_API_DOCUMENT_NAME], asServed(JSON_API_DOCUMENT_SCHEMA));
    const documents = Object.keys(schemas).filter((name) => /(Create|Replace|Patch)RequestDocument$/.test(name));
    assert.ok(documents.length >= 3, documents.join(', '));
    for (const name of documents)
      assert.deepEqual(schemas[name]!.allOf, [{ $ref: `#/components/schemas/${JSON_API_DOCUMENT_NAME}` }], name);
  });
});
