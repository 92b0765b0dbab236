// Bounds on a caller's `like`/`ilike` value: a match costs up to text × pattern length on every
// database, so the pattern's length and its wildcards are capped before any query runs.
import { SERVER_LIMIT_DEFAULTS } from '../config/config-schema.ts';
import type { SvcConfig } from '../config/config-types.ts';

export interface LikePatternLimits {
  /** Characters (code points), escapes included. */
  maxLength: number;
  /** Unescaped `%` and `_`. */
  maxWildcards: number;
}

export function likePatternLimits(
  server: Pick<SvcConfig['server'], 'likePatternMaxLength' | 'likePatternMaxWildcards'>,
): LikePatternLimits {
  return {
    maxLength: server.likePatternMaxLength ?? SERVER_LIMIT_DEFAULTS.likePatternMaxLength,
    maxWildcards: server.likePatternMaxWildcards ?? SERVER_LIMIT_DEFAULTS.likePatternMaxWildcards,
  };
}

export const DEFAULT_LIKE_PATTERN_LIMITS: LikePatternLimits = likePatternLimits({});

/** Why the pattern is refused, or null. Stops counting past the bound, so a huge value costs no more. */
export function likePatternProblem(pattern: string, limits: LikePatternLimits): string | null {
  let length = 0;
  let wildcards = 0;
  let escaped = false;
  for (const char of pattern) {
    if (++length > limits.maxLength) return `patterns may be at most ${limits.maxLength} characters long`;
    if (escaped) escaped = false;
    else if (char === '\\') escaped = true;
    else if ((char === '%' || char === '_') && ++wildcards > limits.maxWildcards)
      return `patterns may have at most ${limits.maxWildcards} wildcards (% and _)`;
  }
  return null;
}
