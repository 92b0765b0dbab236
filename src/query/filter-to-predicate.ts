// Compiles a FilterNode into an in-memory predicate over a decoded record, with the semantics of
// filter-to-sql.ts: the stream decides per event what the list endpoint decides per row in SQL.
import { isDeepStrictEqual } from 'node:util';
import type { Resource } from '../resources/resource.ts';
import type { StorageKind } from '../store/storage-kind.ts';
import type { RecordValues } from '../model/record-values.ts';
import type { FilterNode } from '../model/filter-node.ts';
import { compileLikePattern } from '../tools/like-pattern.ts';
import { compileLinearRegex } from '../tools/linear-regex.ts';

export type RecordPredicate = (record: RecordValues) => boolean;

/**
 * SQL's three-valued logic collapses to two values here: a condition that SQL finds unknown (a null
 * column, a null in a `nin` list) is false. That is exact because the only negation filter-to-sql.ts
 * emits is `not coalesce(x, false)`, which also reads unknown as false before negating.
 */
export function filterToPredicate(node: FilterNode, resource: Resource): RecordPredicate {
  switch (node.kind) {
    case 'constant': {
      const { value } = node;
      return () => value;
    }
    // Loops, not every/some with an arrow: that arrow was a new closure per record tested, and a stream
    // event tested by 1,000 filtered views made 50 MB/s of garbage (BENCHMARKS.md, Memory).
    case 'and': {
      const parts = node.nodes.map((n) => filterToPredicate(n, resource));
      return (record) => {
        for (let i = 0; i < parts.length; i++) if (!parts[i]!(record)) return false;
        return true;
      };
    }
    case 'or': {
      const parts = node.nodes.map((n) => filterToPredicate(n, resource));
      return (record) => {
        for (let i = 0; i < parts.length; i++) if (parts[i]!(record)) return true;
        return false;
      };
    }
    case 'not': {
      const inner = filterToPredicate(node.node, resource);
      return (record) => !inner(record);
    }
    case 'condition':
      return conditionPredicate(node.field, node.op, node.value, resource);
  }
}

type Condition = Extract<FilterNode, { kind: 'condition' }>;

function conditionPredicate(field: string, op: Condition['op'], operand: unknown, resource: Resource): RecordPredicate {
  const kind = resource.storageOf(field);
  if (!kind) throw new Error(`unknown filter field ${field}`);
  // Own members only: a field named `constructor` that a record lacks is null, not Object.
  const valueIn = (record: RecordValues): unknown => (Object.hasOwn(record, field) ? (record[field] ?? null) : null);
  switch (op) {
    case 'eq':
    case 'neq':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      // filter-to-sql.ts turns a null operand into `is null` / `is not null` / never.
      if (operand === null || operand === undefined) {
        if (op === 'eq') return (record) => valueIn(record) === null;
        if (op === 'neq') return (record) => valueIn(record) !== null;
        return () => false;
      }
      const accept = ORDER_TESTS[op];
      return (record) => {
        const order = compareColumn(kind, valueIn(record), operand);
        return order !== undefined && accept(order);
      };
    }
    case 'in':
    case 'nin': {
      const list = Array.isArray(operand) ? operand : [operand];
      if (list.length === 0) return op === 'in' ? () => false : (record) => valueIn(record) !== null;
      if (op === 'in')
        return (record) => {
          const value = valueIn(record);
          for (let i = 0; i < list.length; i++) if (compareColumn(kind, value, list[i]) === 0) return true;
          return false;
        };
      // `x not in (a, null)` is never true in SQL: `x <> null` is unknown.
      if (list.some((item) => item === null || item === undefined)) return () => false;
      return (record) => {
        const value = valueIn(record);
        if (value === null) return false;
        for (let i = 0; i < list.length; i++) {
          const order = compareColumn(kind, value, list[i]);
          if (order === undefined || order === 0) return false;
        }
        return true;
      };
    }
    case 'is_null':
      return (record) => valueIn(record) === null;
    case 'is_not_null':
      return (record) => valueIn(record) !== null;
    case 'like':
    case 'ilike': {
      const pattern = compileLikePattern(String(operand), op === 'ilike');
      return (record) => {
        const text = textOf(kind, valueIn(record));
        return text !== null && pattern.test(text);
      };
    }
    case 'regex': {
      // The same linear-time engine as SQLite's REGEXP, so a stream and a list agree.
      const pattern = compileLinearRegex(String(operand));
      return (record) => {
        const text = textOf(kind, valueIn(record));
        return text !== null && pattern.test(text);
      };
    }
    case 'contains': {
      if (kind === 'json') {
        // Element containment of a json array (`column @> [value]`); a null operand never matches.
        return (record) => {
          const value = valueIn(record);
          return (
            operand !== null && Array.isArray(value) && value.some((element) => isDeepStrictEqual(element, operand))
          );
        };
      }
      const needle = String(operand);
      return (record) => {
        const text = textOf(kind, valueIn(record));
        return text === null ? false : text.includes(needle);
      };
    }
  }
}

const ORDER_TESTS: Record<'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte', (order: number) => boolean> = {
  eq: (o) => o === 0,
  neq: (o) => o !== 0,
  gt: (o) => o > 0,
  gte: (o) => o >= 0,
  lt: (o) => o < 0,
  lte: (o) => o <= 0,
};

/**
 * Orders a column value against a filter operand as the database does for the column's storage kind:
 * negative, zero or positive; undefined when SQL would find the comparison unknown (a null) or the
 * operand cannot be read as the column's type.
 */
function compareColumn(kind: StorageKind, value: unknown, operand: unknown): number | undefined {
  if (value === null || value === undefined || operand === null || operand === undefined) return undefined;
  switch (kind) {
    case 'integer':
    case 'real':
      return compareNumbers(Number(value), Number(operand));
    case 'boolean':
      return compareNumbers(Number(toBoolean(value)), Number(toBoolean(operand)));
    case 'timestamp':
      // Instants, whatever offset either side is written with.
      return compareNumbers(Date.parse(String(value)), Date.parse(String(operand)));
    case 'json':
      // jsonb equality is by value; ordering JSON documents is not something a filter can mean.
      return isDeepStrictEqual(value, operand) ? 0 : undefined;
    case 'text':
    case 'date':
      return compareCodePoints(String(value), String(operand));
  }
}

function compareNumbers(a: number, b: number): number | undefined {
  if (Number.isNaN(a) || Number.isNaN(b)) return undefined;
  return a < b ? -1 : a > b ? 1 : 0;
}

function toBoolean(value: unknown): boolean {
  if (typeof value === 'string') return value === 'true' || value === '1';
  return Boolean(value);
}

/**
 * Binary (code point) order, as SQLite compares text and PostgreSQL does under the C collation. JS `<`
 * compares UTF-16 code units, which puts astral characters before U+E000..U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs === ys) return x < y ? -1 : 1;
    // A surrogate starts an astral code point, which is above every BMP code point.
    return xs ? 1 : -1;
  }
  return a.length - b.length;
}

/** The text a pattern operator sees: the value as the API shows it. */
function textOf(kind: StorageKind, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (kind === 'json') return JSON.stringify(value);
  return String(value);
}
