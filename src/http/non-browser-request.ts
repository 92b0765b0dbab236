// Tells requests from scripts and servers apart from a browser's, for the identity component's CSRF check.
import type { IncomingHttpHeaders } from 'node:http';

/**
 * A browser sends `Origin` with every request that is neither GET nor HEAD (the value `null` when it
 * hides the origin), and cookies whenever it has them. So a POST with no Origin, no Referer and no
 * Cookie was not made by a browser page, and the Fetch Metadata headers it carries (Node's fetch adds
 * `Sec-Fetch-Mode: cors` to every request) describe no browser context that CSRF could abuse.
 */
export function isNonBrowserRequest(method: string, headers: IncomingHttpHeaders): boolean {
  if (method === 'GET' || method === 'HEAD') return false;
  return headers.origin === undefined && headers.referer === undefined && headers.cookie === undefined;
}

export function isFetchMetadataHeader(name: string): boolean {
  return name.startsWith('sec-fetch-');
}
