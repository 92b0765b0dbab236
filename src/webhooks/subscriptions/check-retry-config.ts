// retryConfig (docs/admin-api.md, Webhooks): an object of the four settings within their ranges (missing ones take the
// defaults), or null for the defaults.
import type { ErrorIssue } from '../../errors/api-error.ts';
import { DEFAULT_RETRY_CONFIG, RETRY_BOUNDS, type RetryConfig } from './retry-config.ts';

export function checkRetryConfig(
  value: unknown,
  pointer: string,
): { retryConfig: RetryConfig | null; issues: ErrorIssue[] } {
  if (value === null) return { retryConfig: null, issues: [] };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return {
      retryConfig: null,
      issues: [
        { pointer, detail: 'must be an object (maxAttempts, backoffMultiplier, initialDelayMs, maxDelayMs) or null' },
      ],
    };
  }
  const given = value as Record<string, unknown>;
  const issues: ErrorIssue[] = [];
  const config: RetryConfig = { ...DEFAULT_RETRY_CONFIG };
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(RETRY_BOUNDS, name))
      issues.push({ pointer: `${pointer}/${name}`, detail: `unknown retry setting "${name}"` });
  }
  for (const [name, bound] of Object.entries(RETRY_BOUNDS) as [
    keyof RetryConfig,
    (typeof RETRY_BOUNDS)[keyof RetryConfig],
  ][]) {
    if (!Object.hasOwn(given, name)) continue;
    const setting = given[name];
    const at = `${pointer}/${name}`;
    if (typeof setting !== 'number' || !Number.isFinite(setting))
      issues.push({ pointer: at, detail: 'must be a number' });
    else if (bound.integer && !Number.isInteger(setting)) issues.push({ pointer: at, detail: 'must be an integer' });
    else if (setting < bound.min || setting > bound.max)
      issues.push({ pointer: at, detail: `must be between ${bound.min} and ${bound.max}` });
    else config[name] = setting;
  }
  return { retryConfig: issues.length === 0 ? config : null, issues };
}
