// The OpenAPI document describes both bodies a write takes (docs/records.md): the flat object as
// application/json, the JSON:API request document as application/vnd.api+json, with relation fields as
// relationships, data.id where it belongs, and the 403 for a client-generated id.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildOpenApiDocument } from '../../src/http/openapi/openapi-document.ts';
import { ResourceRegistry } from '../../src/resources/resource-registry.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { testConfig } from '../helpers/test-config.ts';
import { FIXTURE_RESOURCES, strictAjv } from './openapi-fixtures.ts';

type Json = Record<string, unknown>;

const RESOURCES: Record<string, ResourceDefinition> = {
  ...FIXTURE_RESOURCES,
  labels: { clientIds: true, fields: { text: { type: 'string' } } },
};
const doc = buildOpenApiDocument(
  new ResourceRegistry({ resources: RESOURCES }),
  testConfig('sqlite::memory:', { resources: RESOURCES }),
);
const paths = doc.paths as Record<string, Record<string, Json>>;
const schemas = (doc.components as Record<string, Record<string, Json>>).schemas!;

const ID = '0190b5a2-7c1e-7d3a-9f00-3c5e2a1b4d6f';
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
const valid = (name: string, value: unknown): boolean => ajv.getSchema(`${base}${name}`)!(value) as boolean;

describe('JSON:API request documents in the OpenAPI document', () => {
  it('gives POST, PUT and PATCH the flat body as application/json and the document as application/vnd.api+json', () => {
    const cases: [string, string, string][] = [
      ['/v1/posts', 'post', 'Create'],
      ['/v1/posts/{id}', 'put', 'Replace'],
      ['/v1/posts/{id}', 'patch', 'Patch'],
    ];
    for (const [path, method, mode] of cases) {
      const content = (
        paths[path]![method] as { requestBody: { content: Record<string, { schema: { $ref: string } }> } }
      ).requestBody.content;
      assert.equal(
        content['application/json']!.schema.$ref,
        `#/components/schemas/Posts${mode}Body`,
        `${method} ${path}`,
      );
      assert.equal(
        content['application/vnd.api+json']!.schema.$ref,
        `#/components/schemas/Posts${mode}RequestDocument`,
        `${method} ${path}`,
      );
    }
  });

  it('lists 403 CLIENT_GENERATED_ID_FORBIDDEN and 409 CONFLICT among the answers of a create', () => {
    const responses = paths['/v1/posts']!.post!.responses as Record<string, { description: string }>;
    assert.match(responses['403']!.description, /CLIENT_GENERATED_ID_FORBIDDEN/);
    assert.match(responses['409']!.description, /CONFLICT/);
  });

  it('describes documents as the server takes them: relations as {type,id} linkage or as the attribute reads return, type the resource', () => {
    const relationships = { category_id: { data: { type: 'categories', id: ID } } };
    assert.equal(
      valid('PostsCreateRequestDocument', {
        data: { type: 'posts', attributes: { title: 'Hi', published: true }, relationships },
      }),
      true,
    );
    assert.equal(
      valid('PostsCreateRequestDocument', {
        data: {
          type: 'posts',
          attributes: { title: 'Hi', published: true },
          relationships: { category_id: { data: null } },
        },
      }),
      true,
    );
    assert.equal(
      valid('PostsCreateRequestDocument', { data: { type: 'comments', attributes: { title: 'Hi', published: true } } }),
      false,
      'another type',
    );
    assert.equal(
      valid('PostsCreateRequestDocument', { data: { type: 'posts', attributes: { title: 'Hi' } } }),
      false,
      'a required field missing',
    );
    assert.equal(
      valid('PostsCreateRequestDocument', {
        data: { type: 'posts', attributes: { title: 'Hi', published: true, category_id: ID } },
      }),
      true,
      'a relation under attributes',
    );
    assert.equal(
      valid('PostsCreateRequestDocument', {
        data: {
          type: 'posts',
          attributes: { title: 'Hi', published: true },
          relationships: { category: { data: { type: 'categories', id: ID } } },
        },
      }),
      true,
      'under the relationship name',
    );
    assert.equal(
      valid('PostsCreateRequestDocument', {
        data: {
          type: 'posts',
          attributes: { title: 'Hi', published: true },
          relationships: { category_id: { data: { type: 'posts', id: ID } } },
        },
      }),
      false,
      'linkage to another type',
    );
    assert.equal(valid('PostsCreateRequestDocument', { title: 'Hi', published: true }), false, 'a flat body');

    // A required relation is required on create and replace (as an attribute or a relationship), not on patch.
    assert.equal(
      valid('CommentsCreateRequestDocument', { data: { type: 'comments', attributes: { body: 'x' } } }),
      false,
    );
    assert.equal(
      valid('CommentsCreateRequestDocument', { data: { type: 'comments', attributes: { body: 'x', post_id: ID } } }),
      true,
    );
    assert.equal(
      valid('CommentsCreateRequestDocument', {
        data: {
          type: 'comments',
          attributes: { body: 'x' },
          relationships: { post: { data: { type: 'posts', id: ID } } },
        },
      }),
      true,
    );
    assert.equal(
      valid('CommentsCreateRequestDocument', {
        data: {
          type: 'comments',
          attributes: { body: 'x' },
          relationships: { post_id: { data: { type: 'posts', id: ID } } },
        },
      }),
      true,
    );
    assert.equal(
      valid('CommentsPatchRequestDocument', { data: { type: 'comments', id: ID, attributes: { body: 'y' } } }),
      true,
    );
  });

  it('requires data.id on replace and patch, and offers it on create only where the resource takes client ids', () => {
    assert.equal(
      valid('PostsPatchRequestDocument', { data: { type: 'posts', attributes: { views: 1 } } }),
      false,
      'patch without id',
    );
    assert.equal(
      valid('PostsPatchRequestDocument', { data: { type: 'posts', id: ID, attributes: { views: 1 } } }),
      true,
    );
    assert.equal(
      valid('PostsReplaceRequestDocument', { data: { type: 'posts', attributes: { title: 'Hi', published: true } } }),
      false,
      'replace without id',
    );
    const postData = (schemas.PostsCreateRequestDocument!.properties as { data: { properties: Json } }).data.properties;
    assert.equal(postData.id, undefined);
    const labelData = (schemas.LabelsCreateRequestDocument!.properties as { data: { properties: Json } }).data
      .properties;
    assert.deepEqual((labelData.id as Json).format, 'uuid');
    assert.equal(
      valid('LabelsCreateRequestDocument', { data: { type: 'labels', id: ID, attributes: { text: 'mine' } } }),
      true,
    );
    assert.equal(
      valid('LabelsCreateRequestDocument', {
        data: { type: 'labels', id: 'not a uuid', attributes: { text: 'mine' } },
      }),
      false,
    );
  });
});
