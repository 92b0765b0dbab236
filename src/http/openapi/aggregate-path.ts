// GET /v1/<resource>/aggregate in the OpenAPI document (docs/records.md, "Aggregates"): its parameters
// (the list's filters, and `_group`, `_count`, `_sum`, `_avg`, `_min`, `_max`, `_sort`, `_limit`) and
// the schema of its document.
import type { Resource } from '../../resources/resource.ts';
import {
  DEFAULT_AGGREGATE_LIMIT,
  MAX_AGGREGATE_LIMIT,
  MAX_AGGREGATES,
  MAX_GROUP_FIELDS,
} from '../../query/aggregate-query.ts';
import type { OpenApiObject } from './openapi-refs.ts';
import { filterParameters, filterTreeParameter, searchParameters } from './query-parameters.ts';

const NUMERIC_KINDS = new Set(['integer', 'real']);

function fieldList(name: string, description: string, fields: readonly string[]): OpenApiObject {
  return {
    name,
    in: 'query',
    description,
    style: 'form',
    explode: false,
    schema: { type: 'array', items: { type: 'string', enum: [...fields] } },
  };
}

export function aggregateParameters(resource: Resource): OpenApiObject[] {
  const declared = resource.fieldNames.filter((name) => resource.storageOf(name) !== 'json');
  const numeric = resource.fieldNames.filter((name) => NUMERIC_KINDS.has(resource.storageOf(name) ?? ''));
  const ordered = [...declared, 'id', 'created_at', 'updated_at'];
  const readable = ' Only fields the caller may read (else 400 `INVALID_FIELDS`).';
  return [
    fieldList(
      '_group',
      `Fields to group by, comma-separated, at most ${MAX_GROUP_FIELDS}; without it, one group of every matching row.${readable}`,
      declared,
    ),
    {
      name: '_count',
      in: 'query',
      description:
        'Count the rows of each group (`count`); the default when no other aggregate is asked for. Takes no value.',
      allowEmptyValue: true,
      schema: { type: 'string', enum: ['', 'true'] },
    },
    fieldList(
      '_sum',
      `Numeric fields to sum (\`sum.<field>\`); another kind of field: 400 \`INVALID_QUERY_PARAMS\`.${readable}`,
      numeric,
    ),
    fieldList('_avg', `Numeric fields to average (\`avg.<field>\`).${readable}`, numeric),
    fieldList(
      '_min',
      `Fields whose least value to give (\`min.<field>\`): numbers, texts, times, dates, booleans.${readable}`,
      ordered,
    ),
    fieldList(
      '_max',
      `Fields whose greatest value to give (\`max.<field>\`).${readable} At most ${MAX_AGGREGATES} aggregates in all.`,
      ordered,
    ),
    {
      name: '_sort',
      in: 'query',
      description:
        'Order of the groups, comma-separated keys, `-` for descending: a `_group` field, `count`, or `<function>.<field>` among those asked for ' +
        '(`_sort=-count,sum.views`). Empty values come last either way; then by the group fields.',
      schema: { type: 'string' },
    },
    {
      name: '_limit',
      in: 'query',
      description: `Groups to return (default ${DEFAULT_AGGREGATE_LIMIT}).`,
      schema: { type: 'integer', minimum: 1, maximum: MAX_AGGREGATE_LIMIT, default: DEFAULT_AGGREGATE_LIMIT },
    },
    ...searchParameters(resource),
    filterTreeParameter(resource),
    ...filterParameters(resource),
  ];
}

/** The answer: one `<resource>-aggregates` object per group. */
export function aggregateDocumentSchema(resource: Resource): OpenApiObject {
  // A fresh object per use: the document stays a tree (its YAML form has no anchors).
  const byField = () => ({ type: 'object', additionalProperties: {} });
  return {
    type: 'object',
    required: ['data', 'meta', 'links'],
    properties: {
      data: {
        type: 'array',
        items: {
          type: 'object',
          required: ['type', 'id', 'attributes'],
          properties: {
            type: { type: 'string', const: `${resource.name}-aggregates` },
            id: { type: 'string', description: "The group's values as a JSON array text." },
            attributes: {
              type: 'object',
              description:
                "The group fields' values, `count`, and `sum`, `avg`, `min`, `max` each keyed by field (null where no row had a value).",
              properties: {
                count: { type: 'integer', minimum: 0 },
                sum: byField(),
                avg: byField(),
                min: byField(),
                max: byField(),
              },
              additionalProperties: {},
            },
          },
        },
      },
      meta: { type: 'object', properties: { groups: { type: 'integer', minimum: 0 } } },
      links: { type: 'object', properties: { self: { type: 'string' } } },
    },
  };
}
