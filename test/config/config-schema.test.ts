// CONFIG_SCHEMA: the published file is this object, it is a sound draft 2020-12 schema, and the
// example validates against it as an editor would see it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { CONFIG_SCHEMA, FIELD_TYPE_NAMES, FILTER_OPERATORS } from '../../src/config/config-schema.ts';

const PUBLISHED = fileURLToPath(new URL('../../schema/svc.config.schema.json', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../examples/blog.yaml', import.meta.url));

describe('CONFIG_SCHEMA', () => {
  it('equals the published schema/svc.config.schema.json', async () => {
    const published = JSON.parse(await readFile(PUBLISHED, 'utf8')) as unknown;
    assert.deepEqual(
      published,
      JSON.parse(JSON.stringify(CONFIG_SCHEMA)),
      'schema/svc.config.schema.json is stale: write JSON.stringify(CONFIG_SCHEMA, null, 2) to it',
    );
  });

  it('compiles in strict mode as draft 2020-12', () => {
    assert.equal(CONFIG_SCHEMA.$schema, 'https://json-schema.org/draft/2020-12/schema');
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
    assert.doesNotThrow(() => ajv.compile(CONFIG_SCHEMA));
  });

  it('accepts the bundled example as written, as an editor checks it', async () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    const validate = ajv.compile(CONFIG_SCHEMA);
    const example = parse(await readFile(EXAMPLE, 'utf8')) as unknown;
    assert.ok(validate(example), JSON.stringify(validate.errors, null, 2));
  });

  it('lists the 15 field types and 14 filter operators that docs/configuration.md lists', () => {
    assert.equal(FIELD_TYPE_NAMES.length, 15);
    assert.equal(FILTER_OPERATORS.length, 14);
    const defs = CONFIG_SCHEMA.$defs as Record<string, any>;
    assert.deepEqual(defs.field.properties.type.enum, FIELD_TYPE_NAMES);
    assert.deepEqual(Object.keys(defs.condition.properties), FILTER_OPERATORS);
  });

  it('closes every object whose shape is known', () => {
    const open: string[] = [];
    const visit = (node: unknown, path: string): void => {
      if (node === null || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if (schema.properties !== undefined && schema.additionalProperties === undefined) open.push(path);
      for (const [key, child] of Object.entries(schema)) visit(child, `${path}/${key}`);
    };
    visit(CONFIG_SCHEMA, '#');
    // A filter's keys are field names: its extra keys are conditions, never free.
    assert.deepEqual(open, []);
  });

  it('is frozen', () => {
    assert.ok(Object.isFrozen(CONFIG_SCHEMA));
    assert.ok(Object.isFrozen((CONFIG_SCHEMA.properties as Record<string, unknown>).server));
  });
});
