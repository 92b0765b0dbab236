// Names in the OpenAPI document: readable PascalCase and singulars, and never two alike.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allocateOpenApiNames, pascalCase, singularize } from '../../src/http/openapi/openapi-names.ts';
import { ResourceRegistry } from '../../src/resources/resource-registry.ts';

describe('OpenAPI names', () => {
  it('turns snake_case resource names into PascalCase', () => {
    assert.equal(pascalCase('posts'), 'Posts');
    assert.equal(pascalCase('blog_posts'), 'BlogPosts');
    assert.equal(pascalCase('v2_items'), 'V2Items');
  });

  const singulars: [string, string][] = [
    ['Posts', 'Post'],
    ['Categories', 'Category'],
    ['Movies', 'Movie'],
    ['Boxes', 'Box'],
    ['Matches', 'Match'],
    ['Addresses', 'Address'],
    ['Status', 'Status'],
    ['Analysis', 'Analysis'],
    ['Data', 'Data'],
    ['S', 'S'],
  ];
  for (const [plural, singular] of singulars) {
    it(`singularizes ${plural} as ${singular}`, () => assert.equal(singularize(plural), singular));
  }

  it('gives distinct names to resources that would spell the same', () => {
    const field = { note: { type: 'string' as const } };
    const names = ['a_1', 'a1', 'a__1', 'posts', 'post', 'token', 'error'];
    const registry = new ResourceRegistry({ resources: Object.fromEntries(names.map((n) => [n, { fields: field }])) });
    const allocated = allocateOpenApiNames(registry.all(), ['ErrorDocument', 'TokenRequest'], ['createToken']);
    const schemaNames = names.flatMap((n) =>
      ['Attributes', 'Document', 'ListDocument'].map((s) => allocated.get(n)!.schema(s as 'Document')),
    );
    assert.equal(new Set(schemaNames).size, schemaNames.length, schemaNames.join(', '));
    const operations = names.flatMap((n) =>
      (['list', 'create', 'get', 'replace', 'update', 'delete', 'schema', 'stream'] as const).map((o) =>
        allocated.get(n)!.operationId(o),
      ),
    );
    assert.equal(new Set(operations).size, operations.length);
    assert.equal(operations.includes('createToken'), false, 'the /token operation keeps its id');
    assert.equal(allocated.get('posts')!.operationId('get'), 'getPost');
    assert.equal(allocated.get('a_1')!.schema('Document'), 'A1Document');
    assert.notEqual(allocated.get('error')!.schema('Document'), 'ErrorDocument');
  });
});
