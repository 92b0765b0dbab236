// Role-rule `regex` filters are RE2 syntax everywhere, and must select the same rows on every database.
// This reads a pattern construct by construct and refuses what some supported database cannot say the
// same way (flags after the start, scoped flags, the ungreedy flag, Unicode classes other than \p{L},
// \p{Lu}, \p{Ll}, letter escapes RE2 gives other meanings): `svc check` refuses such a config on any
// database, so a config means the same thing on each. A dialect that rewrites patterns into its own
// syntax (store/postgres/re2-to-postgres.ts) reads them here and spells each construct its way.

export class UntranslatableRegexError extends Error {
  constructor(detail: string) {
    super(`not supported on every database: ${detail}`);
    this.name = 'UntranslatableRegexError';
  }
}

/** The Unicode classes every database has a match for. */
export const PORTABLE_UNICODE_CLASSES = ['L', 'Lu', 'Ll'] as const;
export type PortableUnicodeClass = (typeof PORTABLE_UNICODE_CLASSES)[number];

/** RE2's `\d \D \w \W \s \S` (inside a bracket expression only the lower-case three). */
export type PerlClass = 'd' | 'D' | 'w' | 'W' | 's' | 'S';

/** How a target syntax writes each construct of a portable pattern. */
export interface RegexSpelling {
  /** The pattern's leading flags; `multiLine` is RE2's multi-line ^ and $ (the dot is spelled apart). */
  leadingFlags(flags: { caseInsensitive: boolean; multiLine: boolean }): string;
  /** `.`: any character, or any but a newline unless the `s` flag was given. */
  dot(dotAll: boolean): string;
  /** `\b \B \A \z`. */
  assertion(letter: 'b' | 'B' | 'A' | 'z'): string;
  perlClass(letter: PerlClass, inBracket: boolean): string;
  unicodeClass(name: PortableUnicodeClass, negated: boolean, inBracket: boolean): string;
  /** `\x{…}` / `\xHH`: the code point in hex digits (1 to 8). */
  codePoint(hex: string): string;
  /** The text of a `\Q…\E`, to be matched literally. */
  quoted(text: string): string;
  /** A control escape (`\a \f \t \n \r \v`) or an escaped punctuation character, by its character. */
  escaped(c: string): string;
  /** A bracket expression's `[:name:]` class, as written. */
  posixClass(text: string): string;
  /** A character inside a bracket expression (a leading `]` included). */
  bracketCharacter(c: string): string;
  /** A group's opening: capturing (a name is dropped) or not. */
  groupOpen(capturing: boolean): string;
  /** Any other character outside a bracket expression: an operator or a literal, the same in RE2. */
  character(c: string): string;
}

const PERL_CLASSES = new Set<string>(['d', 'D', 'w', 'W', 's', 'S']);
const PERL_CLASSES_INSIDE = new Set<string>(['d', 'w', 's']);
const CONTROL_ESCAPES = new Set(['a', 'f', 't', 'n', 'r', 'v']);
const LEADING_FLAGS = /^\(\?([imsU]+)\)/;

interface Cursor {
  pattern: string;
  at: number;
}

/** `\p{Name}` or `\pN` at the cursor (just after the `p`/`P`). */
function unicodeClass(cursor: Cursor): PortableUnicodeClass {
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
  const known = PORTABLE_UNICODE_CLASSES.find((portable) => portable === name);
  if (!known) throw new UntranslatableRegexError(`\\p{${name}} (only \\p{L}, \\p{Lu}, \\p{Ll})`);
  return known;
}

/** `\x{HHHH}` or `\xHH` at the cursor (just after the `x`): its hex digits. */
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
  return hex;
}

/** One escape outside a bracket expression; the cursor is just after the backslash. */
function escapeOutside(cursor: Cursor, spell: RegexSpelling): string {
  const c = cursor.pattern[cursor.at] ?? '';
  cursor.at += 1;
  if (c === 'b' || c === 'B' || c === 'A' || c === 'z') return spell.assertion(c);
  if (PERL_CLASSES.has(c)) return spell.perlClass(c as PerlClass, false);
  if (c === 'p' || c === 'P') return spell.unicodeClass(unicodeClass(cursor), c === 'P', false);
  if (c === 'x') return spell.codePoint(hexEscape(cursor));
  if (c === 'Q') {
    const end = cursor.pattern.indexOf('\\E', cursor.at);
    const text = cursor.pattern.slice(cursor.at, end < 0 ? undefined : end);
    cursor.at = end < 0 ? cursor.pattern.length : end + 2;
    return spell.quoted(text);
  }
  if (CONTROL_ESCAPES.has(c) || (c !== '' && !/[0-9A-Za-z]/.test(c))) return spell.escaped(c);
  throw new UntranslatableRegexError(`the escape \\${c}`);
}

/** One escape inside a bracket expression. */
function escapeInside(cursor: Cursor, spell: RegexSpelling): string {
  const c = cursor.pattern[cursor.at] ?? '';
  cursor.at += 1;
  if (PERL_CLASSES_INSIDE.has(c)) return spell.perlClass(c as PerlClass, true);
  if (c === 'p') return spell.unicodeClass(unicodeClass(cursor), false, true);
  if (c === 'x') return spell.codePoint(hexEscape(cursor));
  if (CONTROL_ESCAPES.has(c) || (c !== '' && !/[0-9A-Za-z]/.test(c))) return spell.escaped(c);
  throw new UntranslatableRegexError(`the escape \\${c} inside [...]`);
}

/** A bracket expression from its `[` (at the cursor) to its `]`. */
function bracket(cursor: Cursor, spell: RegexSpelling): string {
  const { pattern } = cursor;
  let out = '[';
  cursor.at += 1;
  if (pattern[cursor.at] === '^') {
    out += '^';
    cursor.at += 1;
  }
  // A `]` right after `[` or `[^` is a literal in RE2.
  if (pattern[cursor.at] === ']') {
    out += spell.bracketCharacter(']');
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
      out += spell.posixClass(pattern.slice(cursor.at, close + 2));
      cursor.at = close + 2;
    } else if (c === '\\') {
      cursor.at += 1;
      out += escapeInside(cursor, spell);
    } else {
      out += spell.bracketCharacter(c);
      cursor.at += 1;
    }
  }
  throw new UntranslatableRegexError('unterminated [...]');
}

/** A group opener at the cursor (`(`): named groups lose their names; flags inside are refused. */
function groupOpen(cursor: Cursor, spell: RegexSpelling): string {
  const rest = cursor.pattern.slice(cursor.at);
  const named = /^\(\?P?<[A-Za-z_][A-Za-z0-9_]*>/.exec(rest);
  if (named) {
    cursor.at += named[0].length;
    return spell.groupOpen(true);
  }
  if (rest.startsWith('(?:')) {
    cursor.at += 3;
    return spell.groupOpen(false);
  }
  if (rest.startsWith('(?'))
    throw new UntranslatableRegexError('flags after the start of the pattern, or scoped flags');
  cursor.at += 1;
  return spell.groupOpen(true);
}

/** The RE2 `pattern` written in `spell`'s syntax. Throws UntranslatableRegexError for what is not portable. */
export function spellPortableRegex(pattern: string, spell: RegexSpelling): string {
  let dotAll = false;
  let out = '';
  const cursor: Cursor = { pattern, at: 0 };
  const flags = LEADING_FLAGS.exec(pattern);
  if (flags) {
    const given = flags[1]!;
    if (given.includes('U')) throw new UntranslatableRegexError('the U (ungreedy) flag');
    out = spell.leadingFlags({ caseInsensitive: given.includes('i'), multiLine: given.includes('m') });
    dotAll = given.includes('s');
    cursor.at = flags[0].length;
  }
  while (cursor.at < pattern.length) {
    const c = pattern[cursor.at]!;
    if (c === '\\') {
      cursor.at += 1;
      out += escapeOutside(cursor, spell);
    } else if (c === '[') {
      out += bracket(cursor, spell);
    } else if (c === '(') {
      out += groupOpen(cursor, spell);
    } else if (c === '.') {
      out += spell.dot(dotAll);
      cursor.at += 1;
    } else {
      out += spell.character(c);
      cursor.at += 1;
    }
  }
  return out;
}

/** Writes nothing: reading a pattern with it only finds what is not portable. */
const CHECK_ONLY: RegexSpelling = {
  leadingFlags: () => '',
  dot: () => '',
  assertion: () => '',
  perlClass: () => '',
  unicodeClass: () => '',
  codePoint: () => '',
  quoted: () => '',
  escaped: () => '',
  posixClass: () => '',
  bracketCharacter: () => '',
  groupOpen: () => '',
  character: () => '',
};

/** Why a role-rule regex would not mean the same on every database (config check), or null. */
export function portableRegexProblem(pattern: string): string | null {
  try {
    spellPortableRegex(pattern, CHECK_ONLY);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
