// Renders errors as JSON:API error documents (`{ errors: [...] }`): string status, code, title, detail, source.
import { ApiError } from './api-error.ts';
import { ERROR_CATALOGUE } from './error-catalogue.ts';

export interface JsonApiErrorObject {
  status: string;
  code: string;
  title: string;
  detail: string;
  source?: { pointer?: string; parameter?: string };
}

export interface JsonApiErrorDocument {
  errors: JsonApiErrorObject[];
}

export function errorDocument(error: ApiError): JsonApiErrorDocument {
  return {
    errors: error.issues.map((issue) => {
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
      return object;
    }),
  };
}
