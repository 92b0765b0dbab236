// What the client throws for an answer that is not a success: the status and the JSON:API errors the
// server sent, so a caller can branch on `code` and point at the field a `source.pointer` names.

export interface JsonApiError {
  status?: string;
  code?: string;
  title?: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string; header?: string };
  meta?: Record<string, unknown>;
}

export class SvcClientError extends Error {
  readonly status: number;
  readonly errors: readonly JsonApiError[];

  constructor(status: number, errors: readonly JsonApiError[], message?: string) {
    super(message ?? errors[0]?.detail ?? errors[0]?.title ?? `HTTP ${status}`);
    this.name = 'SvcClientError';
    this.status = status;
    this.errors = errors;
  }

  /** The first error's code (`INVALID_QUERY_PARAMS`, `UNAUTHORIZED`, …), if the server sent one. */
  get code(): string | undefined {
    return this.errors[0]?.code;
  }
}
