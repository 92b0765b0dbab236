// Regular expressions for role-rule `regex` filters, matched in linear time (RE2 syntax, through re2js).
// A backtracking engine lets a pattern such as ^(a+)+$ against a value a writer chose block the process
// for minutes; RE2 has no backtracking, and so no backreferences or lookaround either. The same engine
// serves SQLite's REGEXP and the in-process check of stream events, so both agree on every pattern.
import { RE2JS } from 're2js';

export const MAX_REGEX_LENGTH = 512;

export interface LinearRegex {
  /** Whether the pattern matches anywhere in `text`. */
  test(text: string): boolean;
}

const compiled = new Map<string, LinearRegex>();

export function compileLinearRegex(pattern: string): LinearRegex {
  let regex = compiled.get(pattern);
  if (!regex) {
    if (pattern.length > MAX_REGEX_LENGTH) throw new Error(`regex pattern longer than ${MAX_REGEX_LENGTH} characters`);
    const re = RE2JS.compile(pattern);
    regex = { test: (text) => re.test(text) };
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex;
}

/** Why a pattern cannot be used (config check), or null. */
export function linearRegexProblem(pattern: string): string | null {
  try {
    compileLinearRegex(pattern);
  } catch (error) {
    return `not a valid regular expression (RE2 syntax: no backreferences or lookaround): ${(error as Error).message}`;
  }
  return null;
}

/**
 * ajv's `code.regExp` engine, so a field's `pattern` is checked in linear time too. ajv keys compiled
 * patterns by `toString()`, which must differ per pattern.
 */
export const ajvLinearRegExp = Object.assign(
  (pattern: string) => {
    const regex = compileLinearRegex(pattern);
    return { test: (text: string) => regex.test(text), toString: () => `re2:${pattern}` };
  },
  { code: 'svcLinearRegExp' },
);
