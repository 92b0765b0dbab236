// The answer kept for a retry: status, the headers that describe it, and the body as sent.
export interface StoredResponse {
  status: number;
  /** Location and Content-Type and the like; never per-request ones (X-Request-Id, RateLimit-*). */
  headers: Record<string, string>;
  body: string;
}
