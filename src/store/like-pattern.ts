// SQL LIKE matching in memory: `%` any run of characters, `_` one character, `\` escapes the next one.
// Shared semantics of the dialects' `like` (case-sensitive) and `ilike` (case-insensitive, Unicode).
// Not a RegExp: `^.*a.*a.*a…b$` backtracks polynomially, and a caller's `ilike` value could hang the
// process. This matcher backtracks only to the last `%`, so a test costs at most pattern × text steps.

export interface LikePattern {
  test(text: string): boolean;
}

type Token = { kind: 'any' } | { kind: 'one' } | { kind: 'literal'; char: string; matches: (char: string) => boolean };

const REGEXP_SPECIAL = /[\\^$.*+?()[\]{}|/]/;

/** Equality of one code point with `char`, case-insensitively as a `iu` RegExp compares them. */
function caseInsensitiveEquals(char: string): (other: string) => boolean {
  const single = new RegExp(`^${REGEXP_SPECIAL.test(char) ? `\\${char}` : char}$`, 'iu');
  const known = new Map<string, boolean>();
  return (other) => {
    if (other === char) return true;
    let result = known.get(other);
    if (result === undefined) {
      result = single.test(other);
      if (known.size < 256) known.set(other, result);
    }
    return result;
  };
}

export function compileLikePattern(pattern: string, caseInsensitive: boolean): LikePattern {
  const tokens: Token[] = [];
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    let char = chars[i]!;
    if (char === '%') {
      // Runs of `%` mean one `%`.
      if (tokens.at(-1)?.kind !== 'any') tokens.push({ kind: 'any' });
      continue;
    }
    if (char === '_') {
      tokens.push({ kind: 'one' });
      continue;
    }
    // A trailing escape character escapes nothing: it stands for itself.
    if (char === '\\') char = chars[++i] ?? '\\';
    const literal = char;
    tokens.push({ kind: 'literal', char: literal, matches: caseInsensitive ? caseInsensitiveEquals(literal) : (other) => other === literal });
  }
  return { test: (text) => matches(tokens, [...text]) };
}

/** Wildcard matching that returns to the last `%` on a mismatch: O(tokens × characters). */
function matches(tokens: readonly Token[], text: readonly string[]): boolean {
  let p = 0;
  let t = 0;
  let lastAny = -1;
  let resumeAt = 0;
  while (t < text.length) {
    const token = tokens[p];
    if (token !== undefined && (token.kind === 'one' || (token.kind === 'literal' && token.matches(text[t]!)))) {
      p++;
      t++;
    } else if (token?.kind === 'any') {
      lastAny = p++;
      resumeAt = t;
    } else if (lastAny >= 0) {
      // Let the last `%` take one more character and try the rest again.
      p = lastAny + 1;
      t = ++resumeAt;
    } else return false;
  }
  while (tokens[p]?.kind === 'any') p++;
  return p === tokens.length;
}
