// A subscription url: http(s), at most 2048 characters, no credentials, and not a private target
// unless those are allowed (docs/webhooks.md). Names that resolve to private addresses are caught at delivery.
import { ALLOW_PRIVATE_HINT, privateHostProblem } from './private-address.ts';

export const MAX_URL_LENGTH = 2048;

/** Problems with a url, as messages; empty when it is acceptable. */
export function checkWebhookUrl(value: string, options: { allowPrivateTargets: boolean }): string[] {
  if (value.length > MAX_URL_LENGTH) return [`must be at most ${MAX_URL_LENGTH} characters`];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return ['must be an absolute http or https URL'];
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return ['must use http or https'];
  if (url.username !== '' || url.password !== '') return ['must not contain credentials; send them as a custom header'];
  if (!options.allowPrivateTargets) {
    const problem = privateHostProblem(url.hostname);
    if (problem)
      return [`${problem}; private, loopback and link-local targets are not allowed (${ALLOW_PRIVATE_HINT})`];
  }
  return [];
}
