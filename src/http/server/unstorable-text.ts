// Text no database stores as sent: PostgreSQL text and jsonb refuse U+0000, and a lone surrogate cannot
// be encoded as UTF-8 (SQLite would keep U+FFFD instead). Found here, at the edge, for every input.
import type { ErrorIssue } from '../../errors/api-error.ts';

const LONE_SURROGATE = /\p{Surrogate}/u;

/** Why `text` cannot be stored, or undefined when it can. */
export function unstorableProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(text)) return 'must be well-formed Unicode (it contains a lone surrogate)';
  return undefined;
}

/**
 * A JSON text can only yield such strings through a `\u0000` or `\uD800`-`\uDFFF` escape: raw control
 * characters are not JSON, and bytes that are not UTF-8 were already decoded to U+FFFD. A body without
 * such an escape is not walked at all. (An escaped backslash before `u` is a harmless false positive.)
 */
const SUSPECT_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

export function mayHoldUnstorableText(jsonText: string): boolean {
  return SUSPECT_ESCAPE.test(jsonText);
}

/** RFC 6901: `~` and `/` are escaped inside a pointer's reference tokens. */
const token = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Enough to show what is wrong; a body full of bad strings does not make the answer grow with it. */
export const MAX_UNSTORABLE_ISSUES = 10;

/**
 * Every string in a parsed JSON value, object keys included, that cannot be stored: one issue each, with
 * the JSON pointer of the string (of the member, for a key). Iterative: values nest as deep as the body
 * parser allows, and arrays can hold hundreds of thousands of items.
 */
export function findUnstorableText(value: unknown, rootPointer: string): ErrorIssue[] {
  const issues: ErrorIssue[] = [];
  // [value, pointer, whether the value is a member name]
  const pending: [unknown, string, boolean][] = [[value, rootPointer, false]];
  while (pending.length > 0 && issues.length < MAX_UNSTORABLE_ISSUES) {
    const [next, pointer, isName] = pending.pop()!;
    if (typeof next === 'string') {
      const problem = unstorableProblem(next);
      if (problem) issues.push({ pointer, detail: `The ${isName ? 'member name' : 'value'} ${problem}` });
    } else if (Array.isArray(next)) {
      // Last first, so that issues come out in document order.
      for (let i = next.length - 1; i >= 0; i--) pending.push([next[i], `${pointer}/${i}`, false]);
    } else if (typeof next === 'object' && next !== null) {
      const entries = Object.entries(next);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, inner] = entries[i]!;
        const memberPointer = `${pointer}/${token(key)}`;
        pending.push([inner, memberPointer, false], [key, memberPointer, true]);
      }
    }
  }
  return issues;
}
