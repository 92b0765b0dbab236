// A list filter evaluated on a record the stream delivered, so a live query knows whether a change
// enters or leaves it without asking the server. Patterns (`like`, `ilike`) are the one part whose
// exact semantics belong to the database (collation, Unicode case folding): a filter that uses one is
// reported as undecidable and the live query asks the server instead.

type Loose = Record<string, unknown>;
type Outcome = boolean | 'unknown';

const OPERATORS = new Set([
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'nin',
  'is_null',
  'is_not_null',
  'like',
  'ilike',
]);

/** Splits `views__gte` into the field and operator; a bare name is `eq`. */
export function splitFilterName(name: string): { field: string; op: string } {
  const at = name.lastIndexOf('__');
  if (at > 0 && OPERATORS.has(name.slice(at + 2))) return { field: name.slice(0, at), op: name.slice(at + 2) };
  return { field: name, op: 'eq' };
}

const isEmpty = (value: unknown): boolean => value === null || value === undefined;

/** Orders two non-null values of one field as the database does for numbers, booleans, ISO dates and ids. */
export function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const left = String(a);
  const right = String(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

/** The filter's value as the field's value type: a filter on a number field given as a string compares as a number. */
function coerce(sample: unknown, value: unknown): unknown {
  if (typeof sample === 'number' && typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  if (typeof sample === 'boolean' && typeof value === 'string') return value === 'true';
  return value;
}

function listOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return typeof value === 'string' ? value.split(',') : [value];
}

function test(actual: unknown, op: string, expected: unknown): Outcome {
  if (op === 'is_null') return isEmpty(actual);
  if (op === 'is_not_null') return !isEmpty(actual);
  if (op === 'like' || op === 'ilike') return 'unknown';
  // SQL: a comparison with NULL is never true, `neq` and `nin` included.
  if (isEmpty(actual)) return false;
  if (op === 'in' || op === 'nin') {
    const found = listOf(expected).some((item) => compareValues(actual, coerce(actual, item)) === 0);
    return op === 'in' ? found : !found;
  }
  const order = compareValues(actual, coerce(actual, expected));
  switch (op) {
    case 'eq':
      return order === 0;
    case 'neq':
      return order !== 0;
    case 'gt':
      return order > 0;
    case 'gte':
      return order >= 0;
    case 'lt':
      return order < 0;
    case 'lte':
      return order <= 0;
    default:
      return 'unknown';
  }
}

/** Whether `record` matches every filter parameter; 'unknown' when that cannot be decided here. */
export function matchesFilter(record: Loose, filter: Loose): Outcome {
  let outcome: Outcome = true;
  for (const [name, expected] of Object.entries(filter)) {
    if (expected === undefined) continue;
    const { field, op } = splitFilterName(name);
    if (!Object.hasOwn(record, field)) return 'unknown';
    const result = test(record[field], op, expected);
    if (result === false) return false;
    if (result === 'unknown') outcome = 'unknown';
  }
  return outcome;
}
