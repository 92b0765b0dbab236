// Query parameters of a resource's list and stream endpoints (docs/records.md, docs/streams.md): sorting,
// field selection and one filter parameter per field and operator, as parseListQuery accepts them.
import type { FieldDefinition, FilterOperator } from '../../config/config-types.ts';
import { LIST_OPERATORS, LIST_PARAMETERS, SEARCH_PARAMETER } from '../../query/parse-list-query.ts';
import { RANK_SORT_KEY } from '../../query/list-query.ts';
import { MAX_SEARCH_LENGTH, MAX_SEARCH_WORDS, MIN_PREFIX_LENGTH } from '../../query/parse-search.ts';
import type { FieldType, JsonSchema } from '../../resources/field-types/index.ts';
import { uuidField } from '../../resources/field-types/uuid-field.ts';
import { datetimeField } from '../../resources/field-types/datetime-field.ts';
import type { Resource } from '../../resources/resource.ts';
import { parameterRef, type OpenApiObject } from './openapi-refs.ts';
import { toOneRelations } from '../../resources/relations.ts';

const OPERATOR_TEXT: Readonly<Record<FilterOperator, string>> = {
  eq: 'equals the value',
  neq: 'does not equal the value',
  gt: 'is greater than the value',
  gte: 'is greater than or equal to the value',
  lt: 'is less than the value',
  lte: 'is less than or equal to the value',
  in: 'is one of the comma-separated values',
  nin: 'is none of the comma-separated values',
  is_null: 'is null (only the presence of the parameter matters)',
  is_not_null: 'is not null (only the presence of the parameter matters)',
  like: 'matches the case-sensitive pattern (`%`: any characters, `_`: one character)',
  ilike: 'matches the case-insensitive pattern (`%`: any characters, `_`: one character)',
  contains: 'contains the value',
  regex: 'matches the regular expression',
};

interface FilterableField {
  name: string;
  type: FieldType;
  definition: FieldDefinition;
}

/** Every field a list can be filtered on: the system fields too, typed as the query parser types them. */
function filterableFields(resource: Resource): FilterableField[] {
  return [
    { name: 'id', type: uuidField, definition: { type: 'uuid' } },
    ...[...resource.fields.values()].map((f) => ({ name: f.name, type: f.type, definition: f.definition })),
    { name: 'created_at', type: datetimeField, definition: { type: 'datetime' } },
    { name: 'updated_at', type: datetimeField, definition: { type: 'datetime' } },
  ];
}

/** What a filter value must look like: the field's type, format and enum. Bounds such as `maximum` limit
 *  stored values, not the values one compares with, and the parser does not apply them. */
function filterValueSchema(field: FilterableField): JsonSchema {
  const value = field.type.valueSchema(field.definition);
  const schema: JsonSchema = {};
  for (const keyword of ['type', 'format', 'enum'] as const)
    if (value[keyword] !== undefined) schema[keyword] = structuredClone(value[keyword]);
  return schema;
}

function filterParameter(field: FilterableField, op: FilterOperator, name: string): OpenApiObject {
  const parameter: OpenApiObject = {
    name,
    in: 'query',
    description: `Filter: \`${field.name}\` ${OPERATOR_TEXT[op]}.`,
    // The field and operator as data, so a client (the web console) need not split `<field>__<op>`, whose
    // field may itself contain `__`, nor keep its own copy of the operators.
    'x-filter': {
      field: field.name,
      operator: op,
      ...(op === 'is_null' || op === 'is_not_null' ? { valueless: true } : {}),
    },
  };
  if (op === 'in' || op === 'nin') {
    parameter.style = 'form';
    parameter.explode = false;
    parameter.schema = { type: 'array', items: filterValueSchema(field) };
  } else if (op === 'like' || op === 'ilike' || op === 'is_null' || op === 'is_not_null') {
    parameter.schema = { type: 'string' };
  } else {
    parameter.schema = filterValueSchema(field);
  }
  return parameter;
}

/** `<field>` (eq) and `<field>__<op>` for each list operator the field's type allows. */
export function filterParameters(resource: Resource): OpenApiObject[] {
  const fields = filterableFields(resource);
  // A field's own name wins over `<field>__<op>` in the parser, so such a spelling is not a filter.
  const fieldNames = new Set(fields.map((f) => f.name));
  const parameters: OpenApiObject[] = [];
  for (const field of fields) {
    for (const op of LIST_OPERATORS) {
      if (!field.type.operators.has(op)) continue;
      // `sort` is the list's sort parameter: a field of that name is filtered as `sort__eq` (or `filter[sort]`).
      if (op === 'eq' && !LIST_PARAMETERS.has(field.name)) parameters.push(filterParameter(field, op, field.name));
      const name = `${field.name}__${op}`;
      if (!fieldNames.has(name)) parameters.push(filterParameter(field, op, name));
    }
  }
  return parameters;
}

/**
 * `_filter`: a JSON filter tree (docs/records.md, "The _filter parameter"). The schema names each field and
 * the operators its type takes; the groups' members are described, not repeated, to keep it finite.
 */
export function filterTreeParameter(resource: Resource): OpenApiObject {
  const properties: Record<string, JsonSchema> = {
    _and: { type: 'array', description: 'Every filter in the list holds.', items: { type: 'object' } },
    _or: { type: 'array', description: 'At least one filter in the list holds.', items: { type: 'object' } },
    _not: { type: 'object', description: 'The filter does not hold.' },
  };
  for (const field of filterableFields(resource)) {
    const operators: Record<string, JsonSchema> = {};
    for (const op of field.type.operators) {
      const value = filterValueSchema(field);
      operators[op] =
        op === 'in' || op === 'nin'
          ? { type: 'array', items: value }
          : op === 'is_null' || op === 'is_not_null'
            ? { const: true }
            : op === 'eq' || op === 'neq' || op === 'gt' || op === 'gte' || op === 'lt' || op === 'lte'
              ? value
              : { type: 'string' };
    }
    properties[field.name] = { type: 'object', properties: operators, additionalProperties: false, minProperties: 1 };
  }
  return {
    name: '_filter',
    in: 'query',
    description:
      'A filter tree as JSON, in the grammar of permission filters: `{"field": {"op": value}}`, `_and`, `_or`, `_not`; ' +
      '`"$userId"` and `"$role"` stand for the caller. ANDed with the other filter parameters. Only readable fields ' +
      '(else 400 `INVALID_FIELDS`); nesting, conditions and `in` values are bounded by `server.filterMaxDepth`, ' +
      '`server.filterMaxConditions` and `server.filterMaxInValues`. Errors name `_filter` and carry `meta.pointer`, ' +
      'the JSON Pointer of the offending member.',
    content: { 'application/json': { schema: { type: 'object', properties, additionalProperties: false } } },
  };
}

/** `_search` (docs/search.md), where the resource has searchable fields; else none. */
export function searchParameters(resource: Resource): OpenApiObject[] {
  if (!resource.search) return [];
  return [
    {
      name: SEARCH_PARAMETER,
      in: 'query',
      description:
        `Full-text search in ${resource.search.fields.map((f) => `\`${f}\``).join(', ')} (language ${resource.search.language}), ` +
        'only those the caller may read: every word must be there; `"quoted words"` must follow each other in one field; ' +
        `\`word*\` matches words that start with it (at least ${MIN_PREFIX_LENGTH} letters). Words are letters and digits; ` +
        `anything else separates them. At most ${MAX_SEARCH_LENGTH} characters and ${MAX_SEARCH_WORDS} words. ANDed with the filters. ` +
        '`_sort=-_rank` orders by relevance.',
      schema: { type: 'string', minLength: 1, maxLength: MAX_SEARCH_LENGTH },
    },
  ];
}

function sortParameter(resource: Resource, name: '_sort' | 'sort'): OpenApiObject {
  const keys = [...resource.sortable, ...(resource.search ? [RANK_SORT_KEY] : [])].flatMap((key) => [key, `-${key}`]);
  return {
    name,
    in: 'query',
    description:
      (name === '_sort'
        ? 'Sort keys, comma-separated, applied in order; prefix `-` for descending.'
        : "JSON:API's name for `_sort`, the same keys; give only one of the two.") +
      (resource.search ? ` \`${RANK_SORT_KEY}\` (with \`_search\`, first only): by relevance.` : ''),
    style: 'form',
    explode: false,
    schema: { type: 'array', uniqueItems: true, items: { type: 'string', enum: keys } },
  };
}

/** `fields`: names of declared fields; the system fields are returned anyway. */
export function fieldsParameter(resource: Resource, description: string): OpenApiObject {
  const items: JsonSchema = { type: 'string' };
  if (resource.fieldNames.length > 0) items.enum = [...resource.fieldNames];
  return {
    name: 'fields',
    in: 'query',
    description,
    style: 'form',
    explode: false,
    schema: { type: 'array', uniqueItems: true, items },
  };
}

/** `include` and `fields[<type>]` (docs/records.md, "Relationships"): the compound document's parameters. */
export function compoundParameters(resource: Resource): OpenApiObject[] {
  const relations = toOneRelations(resource);
  const toOne = relations.length > 0 ? `${relations.map((relation) => `\`${relation.name}\``).join(', ')}, or ` : '';
  const parameters: OpenApiObject[] = [
    {
      name: 'include',
      in: 'query',
      description:
        `Related records to return in \`included\`: relationship paths, comma-separated, nested with dots (from ${resource.name}: ` +
        `${toOne}a resource exactly one field of which refers to ${resource.name}). Each is shown through the caller's own permissions. ` +
        'An unknown relationship, a path deeper than `server.includeMaxDepth` or more records than `server.includeMaxRecords`: 400.',
      schema: { type: 'string' },
    },
  ];
  const types = [...new Set([resource.name, ...relations.map((relation) => relation.target)])];
  for (const type of types) {
    parameters.push({
      name: `fields[${type}]`,
      in: 'query',
      description:
        `JSON:API sparse fieldset: the fields of ${type} records to return, comma-separated (a relationship name stands for its field). ` +
        'Any type may be named this way.' +
        (type === resource.name ? ' Not together with `fields`.' : ''),
      style: 'form',
      explode: false,
      schema: { type: 'array', uniqueItems: true, items: { type: 'string' } },
    });
  }
  return parameters;
}

export function listParameters(resource: Resource): OpenApiObject[] {
  return [
    ...compoundParameters(resource),
    sortParameter(resource, '_sort'),
    sortParameter(resource, 'sort'),
    parameterRef('Limit'),
    parameterRef('Offset'),
    parameterRef('PageLimit'),
    parameterRef('PageOffset'),
    parameterRef('PageSize'),
    parameterRef('PageNumber'),
    parameterRef('PageAfter'),
    parameterRef('PageBefore'),
    fieldsParameter(
      resource,
      'Fields to return, comma-separated (default: every field the caller may read; `id`, `created_at` and `updated_at` are always returned). ' +
        'A field the caller may not read: 400 `INVALID_FIELDS`.',
    ),
    ...searchParameters(resource),
    filterTreeParameter(resource),
    ...filterParameters(resource),
  ];
}
