// The one error type the service throws on purpose; the HTTP layer turns it into a JSON:API document.
import { ERROR_CATALOGUE, type ErrorCode } from './error-catalogue.ts';

export interface ErrorIssue {
  detail: string;
  /** JSON Pointer to the offending member, e.g. `/data/attributes/title`. */
  pointer?: string;
  /** Name of the offending query parameter. */
  parameter?: string;
  /** Where inside a structured parameter's value (a `_filter` JSON Pointer), shown as `meta.pointer`. */
  valuePointer?: string;
  code?: ErrorCode;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly issues: ErrorIssue[];
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    detailOrIssues: string | ErrorIssue | ErrorIssue[] = ERROR_CATALOGUE[code].title,
    options: { cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    const issues =
      typeof detailOrIssues === 'string'
        ? [{ detail: detailOrIssues }]
        : Array.isArray(detailOrIssues)
          ? detailOrIssues
          : [detailOrIssues];
    super(issues.map((i) => i.detail).join('; '), { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.issues = issues.length > 0 ? issues : [{ detail: ERROR_CATALOGUE[code].title }];
    this.headers = options.headers ?? {};
  }
}

export const pointerTo = (field: string): string => `/data/attributes/${field}`;
