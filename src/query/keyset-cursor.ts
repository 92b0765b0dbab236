// The opaque cursors of keyset pages (docs/records.md, "Keyset pages"): base64url of a JSON array that
// names the sort it was made for, then the values of a record's sort keys and its id. A cursor is data,
// never SQL: each value is checked against its column's kind here and later bound as a parameter, so a
// forged cursor can only point at another position in the same list.
import type { Resource } from '../resources/resource.ts';
import { UUID_PATTERN } from '../resources/field-types/uuid-field.ts';
import { datetimeField } from '../resources/field-types/datetime-field.ts';
import type { KeysetPage, SortKey } from './list-query.ts';

/** Longer than any cursor svc writes (a few sort keys of at most a long text each): refused unread. */
const MAX_CURSOR_LENGTH = 16_384;

/** The sort as `_sort` spells it; '' for the default order (by id). */
export function sortSignature(sort: readonly SortKey[]): string {
  return sort.map((key) => `${key.descending ? '-' : ''}${key.field}`).join(',');
}

/** The cursor of `record` in a list sorted by `sort`. */
export function encodeCursor(sort: readonly SortKey[], record: Readonly<Record<string, unknown>>): string {
  const values = sort.map((key) => record[key.field] ?? null);
  return Buffer.from(JSON.stringify([sortSignature(sort), ...values, record.id])).toString('base64url');
}

/**
 * The cursor `text` read back for a list sorted by `sort`: its values in API form, or an Error saying
 * what is wrong with it. An empty text is the empty cursor (null values).
 */
export function decodeCursor(text: string, sort: readonly SortKey[], resource: Resource): unknown[] | null | Error {
  if (text === '') return null;
  if (text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) return new Error('not a cursor svc wrote');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return new Error('not a cursor svc wrote');
  }
  if (!Array.isArray(decoded) || decoded.length !== sort.length + 2 || typeof decoded[0] !== 'string') {
    return new Error('not a cursor svc wrote');
  }
  if (decoded[0] !== sortSignature(sort)) {
    return new Error(
      `the cursor was made for _sort='${decoded[0]}', not for this list's sort; start again from the first page`,
    );
  }
  const id = decoded[sort.length + 1];
  if (typeof id !== 'string' || !UUID_PATTERN.test(id)) return new Error('the cursor holds no record id');
  const values: unknown[] = [];
  for (const [i, key] of sort.entries()) {
    const value = checkedValue(resource, key.field, decoded[i + 1]);
    if (value instanceof Error) return value;
    values.push(value);
  }
  values.push(id);
  return values;
}

/** `value` as a sort value of `field`, or an Error. Null stands for an empty field. */
function checkedValue(resource: Resource, field: string, value: unknown): unknown {
  if (value === null) return null;
  const wrong = new Error(`the cursor's value for '${field}' does not fit the field`);
  const kind = resource.storageOf(field);
  const type = resource.fields.get(field)?.type;
  switch (kind) {
    case 'text':
      return typeof value === 'string' ? value : wrong;
    case 'integer':
      return Number.isSafeInteger(value) ? value : wrong;
    case 'real':
      return typeof value === 'number' && Number.isFinite(value) ? value : wrong;
    case 'boolean':
      return typeof value === 'boolean' ? value : wrong;
    case 'timestamp':
    case 'date':
      if (typeof value !== 'string') return wrong;
      try {
        return (type ?? datetimeField).parse(value, resource.fields.get(field)?.definition ?? { type: 'datetime' });
      } catch {
        return wrong;
      }
    default:
      return wrong; // json fields are not sortable
  }
}

/** `page[after]` / `page[before]` of `raw`, checked; undefined when neither is given. */
export function parseKeysetPage(
  given: { after: string | undefined; before: string | undefined; offsetGiven: boolean },
  sort: readonly SortKey[],
  resource: Resource,
  fail: (parameter: string, detail: string) => void,
): KeysetPage | undefined {
  const { after, before, offsetGiven } = given;
  if (after === undefined && before === undefined) return undefined;
  const parameter = after !== undefined ? 'page[after]' : 'page[before]';
  if (after !== undefined && before !== undefined) {
    fail('page[before]', 'Use only one of page[after] and page[before]');
    return undefined;
  }
  if (offsetGiven) {
    fail(
      parameter,
      `${parameter} cannot be combined with page[offset] or _offset: a page is found by a cursor or by an offset`,
    );
    return undefined;
  }
  const text = (after ?? before)!;
  const values = decodeCursor(text, sort, resource);
  if (values instanceof Error) {
    fail(parameter, `Invalid cursor in ${parameter}: ${values.message}`);
    return undefined;
  }
  return { side: after !== undefined ? 'after' : 'before', values, text };
}
