// The parts of a subscription's url that deliveries use, parsed once per url: every queued attempt
// asks for its host:port (the per-target limit) and every send for its origin and path.
export interface TargetUrl {
  /** `protocol://host[:port]`, undici's pool key. */
  origin: string;
  /** Path and query string. */
  path: string;
  /** The host name alone (private-target checks). */
  hostname: string;
  /** host:port with the scheme's default port filled in: the unit of per-target concurrency. */
  hostPort: string;
}

const parsed = new Map<string, TargetUrl>();
/** Distinct urls remembered; past it the memo starts over. */
const MAX_URLS = 1000;

export function targetUrlOf(url: string): TargetUrl {
  let target = parsed.get(url);
  if (target === undefined) {
    const { origin, pathname, search, hostname, port, protocol } = new URL(url);
    target = {
      origin,
      path: `${pathname}${search}`,
      hostname,
      hostPort: `${hostname}:${port || (protocol === 'https:' ? '443' : '80')}`,
    };
    if (parsed.size >= MAX_URLS) parsed.clear();
    parsed.set(url, target);
  }
  return target;
}
