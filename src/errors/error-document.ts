// Renders errors as JSON:API error documents (`{ errors: [...] }`): string status, code, title, detail, source.
import type { ApiError } from './api-error.ts';
import { ERROR_CATALOGUE } from './error-catalogue.ts';

export interface JsonApiErrorObject {
  status: string;
  code: string;
  title: string;
  detail: string;
  source?: { pointer?: string; parameter?: string };
  /** `pointer`: the place inside the parameter's JSON value (`source.pointer` is reserved for the body). */
  meta?: { pointer: string };
}

export interface JsonApiErrorDocument {
  errors: JsonApiErrorObject[];
}

export function errorDocument(error: ApiError): JsonApiErrorDocument {
  const errors: JsonApiErrorObject[] = [];
  // JSON:API wants the members of `errors` unique: a problem the input repeats is reported once.
  const seen = new Set<string>();
  for (const issue of error.issues) {
    const code = issue.code ?? error.code;
    const entry = ERROR_CATALOGUE[code];
    const object: JsonApiErrorObject = {
      status: String(entry.status),
      code,
      title: entry.title,
      detail: issue.detail,
    };
    if (issue.pointer !== undefined || issue.parameter !== undefined) {
      object.source = {};
      if (issue.pointer !== undefined) object.source.pointer = issue.pointer;
      if (issue.parameter !== undefined) object.source.parameter = issue.parameter;
    }
    if (issue.valuePointer !== undefined) object.meta = { pointer: issue.valuePointer };
    const key = JSON.stringify(object);
    if (seen.has(key)) continue;
    seen.add(key);
    errors.push(object);
  }
  return { errors };
}
