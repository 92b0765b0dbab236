// Resources for the schema and OpenAPI tests: all 13 field types, a disabled resource, and names
// chosen to collide (`post`/`posts`, `error` next to the shared `ErrorDocument`, a field named like a filter).
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { ResourceRegistry } from '../../src/resources/resource-registry.ts';

export const FIXTURE_RESOURCES: Record<string, ResourceDefinition> = {
  categories: {
    description: 'Groups of posts',
    fields: {
      name: { type: 'string', required: true, unique: true, sortable: true, minLength: 2, maxLength: 80 },
      slug: { type: 'string', required: true, pattern: '^[a-z0-9-]+$' },
      description: { type: 'text', description: 'Shown on the category page' },
    },
  },
  posts: {
    enableSoftDelete: true,
    fields: {
      title: { type: 'string', required: true, maxLength: 200, sortable: true },
      body: { type: 'text' },
      status: { type: 'enum', values: ['draft', 'published'], default: 'draft', sortable: true },
      views: { type: 'integer', minimum: 0, default: 0, sortable: true },
      rating: { type: 'number', minimum: 0, maximum: 5 },
      published: { type: 'boolean', required: true },
      published_at: { type: 'datetime', sortable: true },
      publish_on: { type: 'date' },
      external_id: { type: 'uuid' },
      contact: { type: 'email' },
      source: { type: 'url' },
      tags: { type: 'json' },
      category_id: { type: 'relation', resource: 'categories', onDelete: 'set_null' },
    },
  },
  comments: {
    fields: {
      post_id: { type: 'relation', resource: 'posts', required: true },
      body: { type: 'text', required: true, nullable: true },
      score: { type: 'integer' },
      // Spelled like the `score` filter with `gt`: the parser takes it as this field, so must the document.
      score__gt: { type: 'string' },
    },
  },
  post: { fields: { note: { type: 'string' } } },
  error: { fields: { message: { type: 'text', required: true } } },
  secrets: { enabled: false, fields: { value: { type: 'string', required: true } } },
};

export const ENABLED = ['categories', 'posts', 'comments', 'post', 'error'];

export function fixtureRegistry(): ResourceRegistry {
  return new ResourceRegistry({ resources: FIXTURE_RESOURCES });
}

// ajv-formats is CommonJS: under NodeNext its default import is the module, whose `default` is the plugin.
const addFormats = addFormatsModule.default;

/** A strict Ajv 2020 with formats, as a consumer of our schemas would set it up. */
export function strictAjv(): Ajv2020 {
  // Union types (`["string", "null"]`) are how JSON Schema spells nullable; strict mode wants them allowed explicitly.
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  // Our annotation keyword; declaring it keeps strict mode from rejecting the schema.
  ajv.addKeyword({ keyword: 'x-relation', schemaType: 'object' });
  // What aggregates and `_search` do with a field (resources/resource-json-schema.ts).
  ajv.addKeyword({ keyword: 'x-aggregates', schemaType: 'array' });
  ajv.addKeyword({ keyword: 'x-groupable', schemaType: 'boolean' });
  ajv.addKeyword({ keyword: 'x-searchable', schemaType: 'boolean' });
  ajv.addKeyword({ keyword: 'x-search', schemaType: 'object' });
  // A file field and the limits it names (resources/resource-json-schema.ts).
  ajv.addKeyword({ keyword: 'x-file', schemaType: 'boolean' });
  ajv.addKeyword({ keyword: 'x-max-size', schemaType: 'number' });
  ajv.addKeyword({ keyword: 'x-accept', schemaType: 'array' });
  ajv.addKeyword({ keyword: 'x-thumbs', schemaType: 'array' });
  // A request body schema's own words for a refusal (http/bodies/schema-issues.ts).
  ajv.addKeyword({ keyword: 'x-problem', schemaType: 'string' });
  return ajv;
}
