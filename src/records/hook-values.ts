// The values a before-hook leaves, checked again against the field types before they are written: a
// hook is trusted to set any field (it is the application's code), but not to store what the type
// refuses, nor a server-set column.
import { ApiError, type ErrorIssue } from '../errors/api-error.ts';
import type { Resource } from '../resources/resource.ts';
import type { RecordValues } from '../model/record-values.ts';
import { isSystemColumn } from './record-codec.ts';
import { cloneKeepingVouch } from '../resources/field-types/file-metadata.ts';

/**
 * The values handed to a hook: a copy, since the hook changes it and a group commit may run the write
 * again. Only objects (json fields) are cloned; the other values cannot be changed in place.
 */
export function hookCopy(values: RecordValues): RecordValues {
  const copy: RecordValues = {};
  for (const name of Object.keys(values)) {
    const value = values[name];
    // File metadata stays storable in the copy: an upload made it, and a hook is trusted to keep it.
    copy[name] = typeof value === 'object' && value !== null ? cloneKeepingVouch(value) : value;
  }
  return copy;
}

/**
 * `checked`: the values as validated before the hook ran; a value the hook left as it was (the same
 * string, number or boolean) is not validated again.
 */
export function checkHookValues(
  resource: Resource,
  values: RecordValues,
  mode: 'create' | 'update',
  before?: RecordValues,
): RecordValues {
  const invalid: ErrorIssue[] = [];
  const checked: RecordValues = {};
  for (const [name, value] of Object.entries(values)) {
    // A hook removes a value with `delete values.x` or by setting it undefined: both leave it out.
    if (value === undefined) continue;
    if (before !== undefined && typeof value !== 'object' && Object.hasOwn(before, name) && before[name] === value) {
      checked[name] = value;
      continue;
    }
    const field = resource.fields.get(name);
    if (!field) {
      invalid.push({
        field: name,
        detail: isSystemColumn(name)
          ? `'${name}' is set by the server; a hook may not set it`
          : `${resource.name} has no field '${name}' (set by a hook)`,
      });
      continue;
    }
    if (value === null) {
      if (field.nullable) checked[name] = null;
      else invalid.push({ field: name, detail: `'${name}' must not be null` });
      continue;
    }
    const problems = field.validate(value);
    if (problems.length > 0) {
      for (const problem of problems) invalid.push({ field: name, detail: `'${name}' ${problem}` });
      continue;
    }
    try {
      checked[name] = field.type.normalize(value);
    } catch (error) {
      invalid.push({ field: name, detail: `'${name}' ${(error as Error).message}` });
    }
  }
  if (mode === 'create') {
    for (const field of resource.fields.values()) {
      if (
        field.required &&
        !Object.hasOwn(checked, field.name) &&
        !invalid.some((issue) => issue.field === field.name)
      ) {
        invalid.push({ field: field.name, detail: `'${field.name}' is required` });
      }
    }
  }
  if (invalid.length > 0) throw new ApiError('INVALID_RESOURCE_DATA', invalid);
  return checked;
}
