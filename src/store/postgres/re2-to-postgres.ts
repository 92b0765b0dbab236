// Role-rule `regex` filters are RE2 syntax everywhere (SQLite and stream checks run RE2 itself). On
// PostgreSQL the pattern is rewritten into an equivalent Advanced Regular Expression, so a rule selects
// the same rows on both databases: `.` does not match a newline, `\b` is a word boundary (ARE: `\y`),
// `\d \w \s` are ASCII as in RE2, `\p{L} \p{Lu} \p{Ll}` become the locale's classes. What has no ARE
// equivalent (flags after the start, scoped flags, other Unicode classes, octal escapes) is refused,
// and `svc check` refuses it too, so a config means the same thing on either database.

export class UntranslatableRegexError extends Error {
  constructor(detail: string) {
    super(`not supported on every database: ${detail}`);
    this.name = 'UntranslatableRegexError';
  }
}

const PERL_OUTSIDE: Record<string, string> = {
  d: '[0-9]',
  D: '[^0-9]',
  w: '[0-9A-Za-z_]',
  W: '[^0-9A-Za-z_]',
  s: '[\\t\\n\\f\\r ]',
  S: '[^\\t\\n\\f\\r ]',
};
const PERL_INSIDE: Record<string, string> = { d: '0-9', w: '0-9A-Za-z_', s: '\\t\\n\\f\\r ' };
const UNICODE_CLASSES: Record<string, string> = { L: 'alpha', Lu: 'upper', Ll: 'lower' };
const CONTROL_ESCAPES = new Set(['a', 'f', 't', 'n', 'r', 'v']);
const LEADING_FLAGS = /^\(\?([imsU]+)\)/;

interface Cursor {
  pattern: string;
  at: number;
}

/** `\p{Name}` or `\pN` at the cursor (just after the `p`/`P`): the ARE class name. */
function unicodeClass(cursor: Cursor): string {
  const { pattern } = cursor;
  let name: string;
  if (pattern[cursor.at] === '{') {
    const close = pattern.indexOf('}', cursor.at);
    if (close < 0) throw new UntranslatableRegexError('unterminated \\p{...}');
    name = pattern.slice(cursor.at + 1, close);
    cursor.at = close + 1;
  } else {
    name = pattern[cursor.at] ?? '';
    cursor.at += 1;
  }
  // The class name comes from a configured pattern: only the table's own entries count.
  const posix = Object.hasOwn(UNICODE_CLASSES, name) ? UNICODE_CLASSES[name] : undefined;
  if (!posix) throw new UntranslatableRegexError(`\\p{${name}} (only \\p{L}, \\p{Lu}, \\p{Ll})`);
  return posix;
}

/** `\x{HHHH}` or `\xHH` at the cursor (just after the `x`), as ARE's fixed-width `\U` escape. */
function hexEscape(cursor: Cursor): string {
  const { pattern } = cursor;
  let hex: string;
  if (pattern[cursor.at] === '{') {
    const close = pattern.indexOf('}', cursor.at);
    hex = close < 0 ? '' : pattern.slice(cursor.at + 1, close);
    cursor.at = close + 1;
  } else {
    hex = pattern.slice(cursor.at, cursor.at + 2);
    cursor.at += 2;
  }
  if (!/^[0-9A-Fa-f]{1,8}$/.test(hex)) throw new UntranslatableRegexError(`\\x escape '${hex}'`);
  return `\\U${hex.padStart(8, '0')}`;
}

/** One escape outside a bracket expression; the cursor is just after the backslash. */
function escapeOutside(cursor: Cursor): string {
  const c = cursor.pattern[cursor.at] ?? '';
  cursor.at += 1;
  if (c === 'b') return '\\y';
  if (c === 'B') return '\\Y';
  if (c === 'A') return '\\A';
  if (c === 'z') return '\\Z';
  if (PERL_OUTSIDE[c]) return PERL_OUTSIDE[c];
  if (c === 'p') return `[[:${unicodeClass(cursor)}:]]`;
  if (c === 'P') return `[^[:${unicodeClass(cursor)}:]]`;
  if (c === 'x') return hexEscape(cursor);
  if (c === 'Q') {
    const end = cursor.pattern.indexOf('\\E', cursor.at);
    const literal = cursor.pattern.slice(cursor.at, end < 0 ? undefined : end);
    cursor.at = end < 0 ? cursor.pattern.length : end + 2;
    return literal.replace(/[^\p{L}\p{N}\s]/gu, (ch) => `\\${ch}`);
  }
  if (CONTROL_ESCAPES.has(c)) return `\\${c}`;
  if (c !== '' && !/[0-9A-Za-z]/.test(c)) return `\\${c}`;
  throw new UntranslatableRegexError(`the escape \\${c}`);
}

/** One escape inside a bracket expression. */
function escapeInside(cursor: Cursor): string {
  const c = cursor.pattern[cursor.at] ?? '';
  cursor.at += 1;
  if (PERL_INSIDE[c]) return PERL_INSIDE[c];
  if (c === 'p') return `[:${unicodeClass(cursor)}:]`;
  if (c === 'x') return hexEscape(cursor);
  if (CONTROL_ESCAPES.has(c)) return `\\${c}`;
  if (c !== '' && !/[0-9A-Za-z]/.test(c)) return `\\${c}`;
  throw new UntranslatableRegexError(`the escape \\${c} inside [...]`);
}

/** A bracket expression from its `[` (at the cursor) to its `]`. */
function bracket(cursor: Cursor): string {
  const { pattern } = cursor;
  let out = '[';
  cursor.at += 1;
  if (pattern[cursor.at] === '^') {
    out += '^';
    cursor.at += 1;
  }
  // A `]` right after `[` or `[^` is a literal in both syntaxes.
  if (pattern[cursor.at] === ']') {
    out += '\\]';
    cursor.at += 1;
  }
  while (cursor.at < pattern.length) {
    const c = pattern[cursor.at]!;
    if (c === ']') {
      cursor.at += 1;
      return `${out}]`;
    }
    if (c === '[' && pattern[cursor.at + 1] === ':') {
      const close = pattern.indexOf(':]', cursor.at + 2);
      if (close < 0) throw new UntranslatableRegexError('unterminated [:class:]');
      out += pattern.slice(cursor.at, close + 2);
      cursor.at = close + 2;
    } else if (c === '\\') {
      cursor.at += 1;
      out += escapeInside(cursor);
    } else {
      out += c === '[' ? '\\[' : c;
      cursor.at += 1;
    }
  }
  throw new UntranslatableRegexError('unterminated [...]');
}

/** A group opener at the cursor (`(`): named groups lose their names; flags inside are refused. */
function groupOpen(cursor: Cursor): string {
  const rest = cursor.pattern.slice(cursor.at);
  const named = /^\(\?P?<[A-Za-z_][A-Za-z0-9_]*>/.exec(rest);
  if (named) {
    cursor.at += named[0].length;
    return '(';
  }
  if (rest.startsWith('(?:')) {
    cursor.at += 3;
    return '(?:';
  }
  if (rest.startsWith('(?')) throw new UntranslatableRegexError('flags after the start of the pattern, or scoped flags');
  cursor.at += 1;
  return '(';
}

/** The PostgreSQL ARE that matches what the RE2 `pattern` matches. Throws UntranslatableRegexError. */
export function re2ToPostgres(pattern: string): string {
  let options = '';
  let dotAll = false;
  const cursor: Cursor = { pattern, at: 0 };
  const flags = LEADING_FLAGS.exec(pattern);
  if (flags) {
    const given = flags[1]!;
    if (given.includes('U')) throw new UntranslatableRegexError('the U (ungreedy) flag');
    if (given.includes('i')) options += 'i';
    // RE2's multi-line ^ and $ without a newline-matching dot: ARE's "weird" newline-sensitive mode,
    // since the dot is spelled out below anyway.
    if (given.includes('m')) options += 'w';
    dotAll = given.includes('s');
    cursor.at = flags[0].length;
  }
  let out = options ? `(?${options})` : '';
  while (cursor.at < pattern.length) {
    const c = pattern[cursor.at]!;
    if (c === '\\') {
      cursor.at += 1;
      out += escapeOutside(cursor);
    } else if (c === '[') {
      out += bracket(cursor);
    } else if (c === '(') {
      out += groupOpen(cursor);
    } else if (c === '.') {
      out += dotAll ? '.' : '[^\\n]';
      cursor.at += 1;
    } else {
      out += c;
      cursor.at += 1;
    }
  }
  return out;
}
