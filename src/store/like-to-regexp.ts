// SQL LIKE pattern → RegExp: `%` any run of characters, `_` one character, `\` escapes the next one.
// Shared semantics of the dialects' `like` (case-sensitive) and `ilike` (case-insensitive, Unicode).

// The characters that may be escaped in a `u`-flag pattern (`\-` may not).
const REGEXP_SPECIAL = /[\\^$.*+?()[\]{}|/]/;

export function likeToRegExp(pattern: string, caseInsensitive: boolean): RegExp {
  const chars = [...pattern];
  let source = '';
  for (let i = 0; i < chars.length; i++) {
    let char = chars[i]!;
    if (char === '\\') {
      // A trailing escape character escapes nothing: it stands for itself.
      char = chars[++i] ?? '\\';
      source += literal(char);
    } else if (char === '%') source += '.*';
    else if (char === '_') source += '.';
    else source += literal(char);
  }
  // `s`: wildcards match line breaks too, as in SQL; `u`: `_` is one code point, not one UTF-16 unit.
  return new RegExp(`^${source}$`, caseInsensitive ? 'isu' : 'su');
}

function literal(char: string): string {
  return REGEXP_SPECIAL.test(char) ? `\\${char}` : char;
}
