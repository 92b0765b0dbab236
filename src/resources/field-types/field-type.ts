// A field type: how values are stored, validated (JSON Schema), parsed from query strings, filtered.
import type { FieldDefinition, FieldTypeName, FilterOperator } from '../../config/config-types.ts';
import { TEXT_OPERATORS } from '../../config/filter-operators.ts';
import type { StorageKind } from '../../store/storage-kind.ts';

export type JsonSchema = Record<string, unknown>;

export interface FieldType {
  readonly name: FieldTypeName;
  readonly storage: StorageKind;
  /** Schema of a non-null value of this field. */
  valueSchema(field: FieldDefinition): JsonSchema;
  /** Canonical form of a valid value (e.g. datetimes in UTC with milliseconds). */
  normalize(value: unknown): unknown;
  /** Typed value from a query-string or filter value; throws a plain Error whose message says why. */
  parse(raw: string, field: FieldDefinition): unknown;
  /** Filter operators that make sense for the type. */
  readonly operators: ReadonlySet<FilterOperator>;
  /** Which of the attributes only some types take (TYPE_SPECIFIC_ATTRIBUTES) a definition of this type may carry. */
  readonly attributes: ReadonlySet<TypeSpecificAttribute>;
  /** Whether its values have an order a list can be sorted by. */
  readonly sortable: boolean;
}

/** Definition attributes that only some types take; every other attribute applies to every type. */
export const TYPE_SPECIFIC_ATTRIBUTES = [
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'values',
  'resource',
  'onDelete',
  'maxSize',
  'accept',
  'thumbs',
  'protected',
  'maxCount',
] as const;

export type TypeSpecificAttribute = (typeof TYPE_SPECIFIC_ATTRIBUTES)[number];

export const LENGTH_ATTRIBUTES: ReadonlySet<TypeSpecificAttribute> = new Set(['minLength', 'maxLength', 'pattern']);
export const BOUND_ATTRIBUTES: ReadonlySet<TypeSpecificAttribute> = new Set(['minimum', 'maximum']);
export const NO_ATTRIBUTES: ReadonlySet<TypeSpecificAttribute> = new Set();

export const identity = (value: unknown): unknown => value;

/** Schema keywords a definition may carry for string-valued types. */
export function stringBounds(field: FieldDefinition): JsonSchema {
  const schema: JsonSchema = {};
  if (field.minLength !== undefined) schema.minLength = field.minLength;
  if (field.maxLength !== undefined) schema.maxLength = field.maxLength;
  if (field.pattern !== undefined) schema.pattern = field.pattern;
  return schema;
}

export function numberBounds(field: FieldDefinition): JsonSchema {
  const schema: JsonSchema = {};
  if (field.minimum !== undefined) schema.minimum = field.minimum;
  if (field.maximum !== undefined) schema.maximum = field.maximum;
  return schema;
}

/** A textual type: stored as text, compared as text. */
export function textualType(
  name: FieldTypeName,
  schema: (field: FieldDefinition) => JsonSchema,
  check?: (raw: string, field: FieldDefinition) => string | undefined,
  attributes: ReadonlySet<TypeSpecificAttribute> = NO_ATTRIBUTES,
): FieldType {
  return {
    name,
    storage: 'text',
    valueSchema: schema,
    normalize: identity,
    parse(raw, field) {
      const problem = check?.(raw, field);
      if (problem) throw new Error(problem);
      return raw;
    },
    operators: new Set(TEXT_OPERATORS),
    attributes,
    sortable: true,
  };
}
