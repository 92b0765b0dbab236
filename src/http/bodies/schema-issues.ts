// Ajv's errors as JSON:API error objects: one per member (the first problem found there), pointing at
// the member itself, in words a caller reads. A failed `anyOf` reports the branch that got furthest
// into the value (a permissions object with one bad action points at that action), or, when no branch
// matched the value's type, one problem at the member. A schema node may say in its own words what is
// wrong when it refuses a value (`x-problem`, for rules that are about the value as a whole, such as
// "exactly one of id or lid"): then that one problem points at the value, whatever inside the node failed.
import type { ErrorObject } from 'ajv/dist/2020.js';
import type { ErrorIssue } from '../../errors/api-error.ts';

const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'an array',
  null: 'null',
};

const escapeToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** The instance path of the member an error is about: the missing or unknown member for those keywords. */
export function errorPath(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' || error.keyword === 'dependentRequired')
    return `${error.instancePath}/${escapeToken(String(params.missingProperty))}`;
  if (error.keyword === 'additionalProperties')
    return `${error.instancePath}/${escapeToken(String(params.additionalProperty))}`;
  return error.instancePath;
}

/** `/retryConfig/maxAttempts` as `retryConfig.maxAttempts`, the way details name a member. */
function memberName(path: string): string {
  return path
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function typeWords(type: unknown): string {
  const types = Array.isArray(type) ? type : [type];
  return types.map((name) => TYPE_WORDS[String(name)] ?? String(name)).join(' or ');
}

function detailOf(error: ErrorObject, path: string, noun: string): string {
  const name = memberName(path);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `'${name}' is required`;
    case 'dependentRequired':
      return `'${name}' is required with '${String(params.property)}'`;
    case 'additionalProperties':
      return `Unknown ${noun} '${name}'`;
    case 'type':
      return `'${name}' must be ${typeWords(params.type)}`;
    case 'minLength':
      return `'${name}' must be at least ${String(params.limit)} characters long`;
    case 'maxLength':
      return `'${name}' must be at most ${String(params.limit)} characters long`;
    case 'minimum':
      return `'${name}' must be at least ${String(params.limit)}`;
    case 'maximum':
      return `'${name}' must be at most ${String(params.limit)}`;
    case 'maxItems':
      return `'${name}' must have at most ${String(params.limit)} entries`;
    case 'maxProperties':
      return `'${name}' must have at most ${String(params.limit)} members`;
    case 'format':
      return `'${name}' must be ${params.format === 'date-time' ? 'an ISO 8601 date-time with a time zone' : `a ${String(params.format)}`}`;
    default:
      return `'${name}' ${error.message ?? 'is invalid'}`;
  }
}

/** The annotation by which a schema node words its own refusal (see the top of this file). */
export const PROBLEM_KEYWORD = 'x-problem';

/** The node's own words, when the keyword that failed sits in a node that has them. */
function problemOf(error: ErrorObject): string | undefined {
  const problem = (error.parentSchema as Record<string, unknown> | undefined)?.[PROBLEM_KEYWORD];
  return typeof problem === 'string' ? problem : undefined;
}

/** Whether `error` comes from inside the node `speaker` failed in, for the same value or a part of it. */
function spokenFor(error: ErrorObject, speaker: ErrorObject): boolean {
  const node = speaker.schemaPath.slice(0, speaker.schemaPath.lastIndexOf('/'));
  const at = speaker.instancePath;
  return (
    error.schemaPath.startsWith(`${node}/`) && (error.instancePath === at || error.instancePath.startsWith(`${at}/`))
  );
}

/**
 * Drops what a node with its own words already says, and `if`'s own error: the errors of the branch
 * it chose say what is wrong.
 */
function withoutSpokenFor(errors: readonly ErrorObject[]): ErrorObject[] {
  const speakers = errors.filter((error) => problemOf(error) !== undefined);
  return errors.filter(
    (error) =>
      error.keyword !== 'if' &&
      (problemOf(error) !== undefined || !speakers.some((speaker) => spokenFor(error, speaker))),
  );
}

/** Drops the errors of `anyOf` branches that did not get furthest, and the `anyOf` error itself when one did. */
function withoutLosingBranches(errors: readonly ErrorObject[]): ErrorObject[] {
  // An alternative with its own words says them whatever its branches got to.
  const alternatives = errors.filter(
    (error) => (error.keyword === 'anyOf' || error.keyword === 'oneOf') && problemOf(error) === undefined,
  );
  let kept = [...errors];
  for (const alternative of alternatives) {
    const at = alternative.instancePath;
    const deeper = kept.filter((error) => error !== alternative && errorPath(error).startsWith(`${at}/`));
    kept = kept.filter((error) => {
      if (error === alternative) return deeper.length === 0;
      // A branch whose type did not match says nothing useful once another got further, or once the
      // alternative speaks for them all.
      return !(errorPath(error) === at && error.keyword === 'type');
    });
  }
  return kept;
}

/** An `anyOf` none of whose branches took the value's type: the types it would take. */
function alternativesDetail(errors: readonly ErrorObject[], path: string): string {
  const types = errors
    .filter((error) => error.keyword === 'type' && error.instancePath === path)
    .flatMap((error) => {
      const type = (error.params as { type: unknown }).type;
      return Array.isArray(type) ? type : [type];
    });
  const name = memberName(path);
  return types.length > 0 ? `'${name}' must be ${typeWords([...new Set(types)])}` : `'${name}' is invalid`;
}

export interface SchemaIssue extends ErrorIssue {
  /** The top-level member the problem is in, or '' for the body as a whole. */
  member: string;
}

/**
 * One issue per pointer, in Ajv's order, with `prefix` before every pointer (`/data/attributes` for a flat
 * body). `noun` is what the body's members are to its sender (a flat body's are attributes).
 */
export function schemaIssues(errors: readonly ErrorObject[], prefix: string, noun = 'attribute'): SchemaIssue[] {
  const issues = new Map<string, SchemaIssue>();
  for (const error of withoutLosingBranches(withoutSpokenFor(errors))) {
    const problem = problemOf(error);
    const path = problem === undefined ? errorPath(error) : error.instancePath;
    const pointer = `${prefix}${path}`;
    if (issues.has(pointer)) continue;
    const member = path.split('/')[1] ?? '';
    const detail =
      problem ??
      (error.keyword === 'anyOf' || error.keyword === 'oneOf'
        ? alternativesDetail(errors, path)
        : detailOf(error, path, noun));
    issues.set(pointer, { detail, pointer, member: member.replace(/~1/g, '/').replace(/~0/g, '~') });
  }
  return [...issues.values()];
}
