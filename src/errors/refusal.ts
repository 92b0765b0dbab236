// The error a hook or a custom route throws to refuse a request: `new ApiError(status, code, detail,
// {pointer})`, exported from the package as `ApiError`. A hooks file may import the package from its
// own node_modules, a copy other than the one running, so a refusal is recognised by a brand that
// every copy shares (Symbol.for), never by instanceof.
import { ApiError } from './api-error.ts';

const BRAND = Symbol.for('svc.refusal');

/** Where in the request the problem is: a JSON Pointer into the body, or a query parameter's name. */
export interface RefusalSource {
  pointer?: string;
  parameter?: string;
}

/** Letters, digits and underscores, as the catalogue's own codes: a code is a stable name, not a message. */
const CODE_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;
const MAX_DETAIL_LENGTH = 2000;

export class Refusal extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly source: RefusalSource;

  constructor(status: number, code: string, detail: string, source: RefusalSource = {}) {
    super(detail);
    // A bad refusal is the application's bug: it is thrown as a TypeError, which answers 500.
    if (!Number.isInteger(status) || status < 400 || status > 599)
      throw new TypeError(`ApiError: status must be an integer from 400 to 599, got ${String(status)}`);
    if (typeof code !== 'string' || !CODE_PATTERN.test(code))
      throw new TypeError(
        `ApiError: code must be upper-case letters, digits and underscores (e.g. OUT_OF_STOCK), got ${JSON.stringify(code)}`,
      );
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.detail = String(detail).slice(0, MAX_DETAIL_LENGTH);
    this.source = {
      ...(typeof source.pointer === 'string' ? { pointer: source.pointer } : {}),
      ...(typeof source.parameter === 'string' ? { parameter: source.parameter } : {}),
    };
    Object.defineProperty(this, BRAND, { value: true });
  }
}

function isRefusal(error: unknown): error is Refusal {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
}

/** The refusal as the ApiError the HTTP layer answers, or undefined when `error` is not one. */
export function refusalAsApiError(error: unknown): ApiError | undefined {
  if (!isRefusal(error)) return undefined;
  return new ApiError(
    'HOOK_REFUSED',
    { detail: error.detail, ...error.source },
    { chosen: { status: error.status, code: error.code } },
  );
}
