// The one error type the service throws on purpose; the HTTP layer turns it into a JSON:API document.
import { ERROR_CATALOGUE, type ErrorCode } from './error-catalogue.ts';

export interface ErrorIssue {
  detail: string;
  /** JSON Pointer to the offending member, e.g. `/data/attributes/title`. */
  pointer?: string;
  /**
   * The field the problem is about (or a place inside it: `allowedRoles/1`), in the domain's terms:
   * http/ gives it a pointer where the request put the field (an attribute, a relationship, an
   * operation of a batch).
   */
  field?: string;
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
  /**
   * A hook's refusal (refusal.ts): the status and code the application chose, answered instead of the
   * catalogue's (`code` stays HOOK_REFUSED for logs and metrics).
   */
  readonly chosen: { status: number; code: string } | undefined;

  constructor(
    code: ErrorCode,
    detailOrIssues: string | ErrorIssue | ErrorIssue[] = ERROR_CATALOGUE[code].title,
    options: { cause?: unknown; headers?: Record<string, string>; chosen?: { status: number; code: string } } = {},
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
    this.status = options.chosen?.status ?? ERROR_CATALOGUE[code].status;
    this.chosen = options.chosen;
    this.issues = issues.length > 0 ? issues : [{ detail: ERROR_CATALOGUE[code].title }];
    this.headers = options.headers ?? {};
  }

  /** The same error with its issues replaced (pointers moved): its status, code, headers and cause stay. */
  withIssues(issues: ErrorIssue[]): ApiError {
    return new ApiError(this.code, issues, {
      cause: this.cause,
      headers: this.headers,
      ...(this.chosen ? { chosen: this.chosen } : {}),
    });
  }
}
