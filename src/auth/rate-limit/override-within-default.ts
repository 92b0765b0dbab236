// Whether a key's own window limit can ever let it make more requests than the global default does.
// A key with `max` requests per `window` ms can make at most max × ceil(defaultWindow / window)
// requests in any default-length interval (that many of its windows start inside one), and at most
// `max` in any shorter one; both must stay within the default's `max`.
import type { WindowLimit } from './key-rate-limit.ts';

export interface OverrideProblem {
  /** The field to point at: the maximum when it alone is too high, else the window that is too short. */
  field: 'rateLimitMax' | 'rateLimitTimeWindow';
  detail: string;
}

/** Undefined when `override` never allows more than `defaults` in any interval; else why not, with the numbers. */
export function overrideProblem(override: WindowLimit, defaults: WindowLimit): OverrideProblem | undefined {
  const rule =
    `a key's own limit may only tighten the default of ${defaults.max} requests per ${defaults.windowMs} ms: ` +
    `rateLimitMax must be at most ${defaults.max}, and rateLimitMax × ceil(${defaults.windowMs} / rateLimitTimeWindow) at most ${defaults.max}`;
  if (override.max > defaults.max) {
    return { field: 'rateLimitMax', detail: `${rule} (rateLimitMax ${override.max} is above ${defaults.max})` };
  }
  const windows = Math.ceil(defaults.windowMs / override.windowMs);
  const reachable = override.max * windows;
  if (reachable > defaults.max) {
    return {
      field: 'rateLimitTimeWindow',
      detail: `${rule} (${override.max} per ${override.windowMs} ms allows ${override.max} × ${windows} = ${reachable} requests in ${defaults.windowMs} ms)`,
    };
  }
  return undefined;
}
