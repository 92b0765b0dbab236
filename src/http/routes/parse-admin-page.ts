// `_limit` / `_offset` (and their `page[limit]` / `page[offset]` synonyms) of the admin list endpoints,
// with the limits of spec 4.1: default 50, at most 1000.
import { ApiError } from '../../errors/api-error.ts';

export interface AdminPage {
  limit: number;
  offset: number;
}

export const ADMIN_DEFAULT_LIMIT = 50;
export const ADMIN_MAX_LIMIT = 1000;

function single(query: Record<string, unknown>, names: readonly string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = query[name];
    if (value === undefined) continue;
    if (typeof value !== 'string')
      throw new ApiError('INVALID_QUERY_PARAMS', { detail: `${name} must be given once`, parameter: name });
    return { name, value };
  }
  return undefined;
}

function integer(param: { name: string; value: string }, min: number, max: number): number {
  const value = /^\d{1,10}$/.test(param.value) ? Number(param.value) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ApiError('INVALID_QUERY_PARAMS', {
      detail: `${param.name} must be an integer from ${min} to ${max}`,
      parameter: param.name,
    });
  }
  return value;
}

export function parseAdminPage(query: Record<string, unknown>): AdminPage {
  const limit = single(query, ['_limit', 'page[limit]']);
  const offset = single(query, ['_offset', 'page[offset]']);
  return {
    limit: limit ? integer(limit, 1, ADMIN_MAX_LIMIT) : ADMIN_DEFAULT_LIMIT,
    offset: offset ? integer(offset, 0, Number.MAX_SAFE_INTEGER) : 0,
  };
}

/** An optional single-valued string filter such as `?email=` or `?userId=`. */
export function optionalQueryString(query: Record<string, unknown>, name: string): string | undefined {
  const found = single(query, [name]);
  if (found && found.value === '')
    throw new ApiError('INVALID_QUERY_PARAMS', { detail: `${name} must not be empty`, parameter: name });
  return found?.value;
}
