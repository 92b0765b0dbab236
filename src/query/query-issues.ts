// What every query-string parser of a read (list, aggregate) shares: collecting every problem, each
// naming its parameter, reading a parameter that may be given once only, and bounded integers; the
// parser then throws them all as one 400.
import { ApiError, type ErrorIssue } from '../errors/api-error.ts';

export type RawQuery = Record<string, string | string[] | undefined>;

export type QueryIssueCode = 'INVALID_QUERY_PARAMS' | 'INVALID_FIELDS';

export class QueryIssues {
  readonly #raw: RawQuery;
  readonly #issues: ErrorIssue[] = [];

  constructor(raw: RawQuery) {
    this.#raw = raw;
  }

  fail(parameter: string, detail: string, code: QueryIssueCode = 'INVALID_QUERY_PARAMS'): void {
    this.#issues.push({ parameter, detail, code });
  }

  /** The value of a parameter that may be given once; a repeated one is an issue and reads as absent. */
  single(name: string): string | undefined {
    const value = this.#raw[name];
    if (Array.isArray(value)) {
      this.fail(name, `Parameter '${name}' is given more than once`);
      return undefined;
    }
    return value;
  }

  /**
   * An integer from `min` to `max` given under one of `names` (spellings of one parameter, of which only
   * one may be given), or `fallback` when none is or it is wrong (then an issue says so).
   */
  integer(names: readonly string[], fallback: number, min: number, max: number): number {
    const given = names.filter((n) => this.#raw[n] !== undefined);
    if (given.length > 1) {
      this.fail(given[1]!, `Use only one of ${given.join(' and ')}`);
      return fallback;
    }
    if (given.length === 0) return fallback;
    const name = given[0]!;
    const text = this.single(name);
    if (text === undefined) return fallback;
    if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
      this.fail(
        name,
        `Parameter '${name}' must be an integer from ${min} to ${max === Number.MAX_SAFE_INTEGER ? 'up' : max}`,
      );
      return fallback;
    }
    return Number(text);
  }

  /** Takes in the issues of an ApiError another parser threw; anything else is thrown on. */
  absorb(error: unknown): void {
    if (!(error instanceof ApiError)) throw error;
    this.#issues.push(...error.issues.map((issue) => ({ ...issue, code: issue.code ?? error.code })));
  }

  get count(): number {
    return this.#issues.length;
  }

  /** Every issue as one 400, coded by the first. */
  throwIfAny(): void {
    if (this.#issues.length > 0) throw new ApiError(this.#issues[0]!.code ?? 'INVALID_QUERY_PARAMS', this.#issues);
  }
}
