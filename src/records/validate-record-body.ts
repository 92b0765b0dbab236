// Checks a create/replace/patch body against the resource and the caller's writable fields.
// Returns the values to write; throws one error object per problem, each naming its field.
import { ApiError, type ErrorIssue } from '../errors/api-error.ts';
import type { Resource } from '../resources/resource.ts';
import type { AccessGrant } from '../model/access-grant.ts';
import type { RecordValues } from '../model/record-values.ts';
import { isSystemColumn } from './record-codec.ts';
import { isRecord } from '../tools/is-record.ts';

export type WriteMode = 'create' | 'replace' | 'patch';

export function validateRecordBody(
  resource: Resource,
  grant: AccessGrant,
  body: unknown,
  mode: WriteMode,
): RecordValues {
  if (!isRecord(body)) {
    // http/ refuses such a request body first, pointing at it; this is for values given in code (hooks).
    throw new ApiError('INVALID_RESOURCE_DATA', 'The values must be a JSON object of field values');
  }
  const forbidden: ErrorIssue[] = [];
  const invalid: ErrorIssue[] = [];
  const values: RecordValues = {};
  for (const [name, value] of Object.entries(body)) {
    const field = resource.fields.get(name);
    if (!field) {
      invalid.push({
        field: name,
        detail: isSystemColumn(name) ? `'${name}' is set by the server` : `${resource.name} has no field '${name}'`,
      });
      continue;
    }
    if (!grant.fields.has(name) || Object.hasOwn(grant.preset, name)) {
      forbidden.push({
        field: name,
        detail: `Field '${name}' may not be written by this caller`,
        code: 'INVALID_FIELDS',
      });
      continue;
    }
    if (value === null) {
      if (!field.nullable) invalid.push({ field: name, detail: `'${name}' must not be null` });
      else values[name] = null;
      continue;
    }
    const problems = field.validate(value);
    if (problems.length > 0) {
      for (const problem of problems) invalid.push({ field: name, detail: `'${name}' ${problem}` });
      continue;
    }
    try {
      values[name] = field.type.normalize(value);
    } catch (error) {
      invalid.push({ field: name, detail: `'${name}' ${(error as Error).message}` });
    }
  }
  if (forbidden.length > 0) throw new ApiError('INVALID_FIELDS', forbidden);

  Object.assign(values, grant.preset);
  if (mode !== 'patch') {
    for (const field of resource.fields.values()) {
      if (Object.hasOwn(body, field.name) || !grant.fields.has(field.name)) continue;
      if (field.definition.default !== undefined) values[field.name] = structuredClone(field.definition.default);
      else if (field.required) invalid.push({ field: field.name, detail: `'${field.name}' is required` });
      else if (mode === 'replace') values[field.name] = null;
    }
    if (mode === 'create') {
      // Fields the caller may not write still get their defaults; a required one without any is a problem.
      for (const field of resource.fields.values()) {
        if (Object.hasOwn(values, field.name) || Object.hasOwn(body, field.name) || grant.fields.has(field.name))
          continue;
        if (field.definition.default !== undefined) values[field.name] = structuredClone(field.definition.default);
        else if (field.required)
          invalid.push({
            field: field.name,
            detail: `'${field.name}' is required but this caller may not set it`,
          });
      }
    }
  }
  if (invalid.length > 0) throw new ApiError('INVALID_RESOURCE_DATA', invalid);
  return values;
}
