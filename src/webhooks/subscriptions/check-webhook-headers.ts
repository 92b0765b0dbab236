// Custom delivery headers: string values, valid names, none that would change how the request is framed
// or routed (hop-by-hop, Host, Content-Length) or impersonate the headers the service itself sends.
import type { ErrorIssue } from '../../errors/api-error.ts';

export const MAX_CUSTOM_HEADERS = 50;
const MAX_HEADER_VALUE_LENGTH = 8192;
/** RFC 9110 token characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible ASCII, space and tab, obs-text; never CR or LF (header injection). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const RESERVED = new Set([
  // hop-by-hop (RFC 9110 7.6.1) and framing/routing
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'expect',
  // set by the service on every delivery (docs/webhooks.md, What a delivery looks like; Standard Webhooks)
  'content-type',
  'user-agent',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);

const escapePointer = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');

export function checkWebhookHeaders(
  value: unknown,
  field: string,
): { headers: Record<string, string> | null; issues: ErrorIssue[] } {
  if (value === null) return { headers: null, issues: [] };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return {
      headers: null,
      issues: [{ field, detail: 'must be an object of header names to string values, or null' }],
    };
  }
  const issues: ErrorIssue[] = [];
  // Collected as entries: assigning a header named `__proto__` to an object literal would be dropped.
  const accepted: [string, string][] = [];
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_CUSTOM_HEADERS)
    issues.push({ field, detail: `must have at most ${MAX_CUSTOM_HEADERS} headers` });
  const seen = new Set<string>();
  for (const [name, headerValue] of entries) {
    const at = `${field}/${escapePointer(name)}`;
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) issues.push({ field: at, detail: `"${name}" is not a valid header name` });
    else if (RESERVED.has(lower) || lower.startsWith('x-service-')) {
      issues.push({ field: at, detail: `"${name}" is set by the service or is hop-by-hop and cannot be customised` });
    } else if (seen.has(lower))
      issues.push({ field: at, detail: `"${name}" is given more than once (names are case-insensitive)` });
    seen.add(lower);
    if (typeof headerValue !== 'string') issues.push({ field: at, detail: 'must be a string' });
    else if (headerValue.length > MAX_HEADER_VALUE_LENGTH)
      issues.push({ field: at, detail: `must be at most ${MAX_HEADER_VALUE_LENGTH} characters` });
    else if (!HEADER_VALUE.test(headerValue))
      issues.push({ field: at, detail: 'must not contain line breaks or control characters' });
    else accepted.push([name, headerValue]);
  }
  return { headers: issues.length === 0 ? Object.fromEntries(accepted) : null, issues };
}
