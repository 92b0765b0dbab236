// Role-rule `regex` filters are RE2 syntax everywhere (SQLite and stream checks run RE2 itself). On
// PostgreSQL the pattern is rewritten into an equivalent Advanced Regular Expression, so a rule selects
// the same rows on both databases: `.` does not match a newline, `\b` is a word boundary (ARE: `\y`),
// `\d \w \s` are ASCII as in RE2, `\p{L} \p{Lu} \p{Ll}` become the locale's classes. What has no ARE
// equivalent is refused by the portable reading (tools/portable-regex.ts), which `svc check` applies
// too, so a config means the same thing on either database.
import { spellPortableRegex, type PortableUnicodeClass, type RegexSpelling } from '../../tools/portable-regex.ts';

const PERL_OUTSIDE: Record<string, string> = {
  d: '[0-9]',
  D: '[^0-9]',
  w: '[0-9A-Za-z_]',
  W: '[^0-9A-Za-z_]',
  s: '[\\t\\n\\f\\r ]',
  S: '[^\\t\\n\\f\\r ]',
};
const PERL_INSIDE: Record<string, string> = { d: '0-9', w: '0-9A-Za-z_', s: '\\t\\n\\f\\r ' };
const UNICODE_CLASSES: Record<PortableUnicodeClass, string> = { L: 'alpha', Lu: 'upper', Ll: 'lower' };
const ASSERTIONS = { b: '\\y', B: '\\Y', A: '\\A', z: '\\Z' } as const;

const ARE: RegexSpelling = {
  // RE2's multi-line ^ and $ without a newline-matching dot: ARE's "weird" newline-sensitive mode,
  // since the dot is spelled out anyway.
  leadingFlags: ({ caseInsensitive, multiLine }) => {
    const options = `${caseInsensitive ? 'i' : ''}${multiLine ? 'w' : ''}`;
    return options ? `(?${options})` : '';
  },
  dot: (dotAll) => (dotAll ? '.' : '[^\\n]'),
  assertion: (letter) => ASSERTIONS[letter],
  perlClass: (letter, inBracket) => (inBracket ? PERL_INSIDE[letter]! : PERL_OUTSIDE[letter]!),
  unicodeClass: (name, negated, inBracket) => {
    const posix = `[:${UNICODE_CLASSES[name]}:]`;
    return inBracket ? posix : `[${negated ? '^' : ''}${posix}]`;
  },
  // ARE's fixed-width `\U` escape.
  codePoint: (hex) => `\\U${hex.padStart(8, '0')}`,
  quoted: (text) => text.replace(/[^\p{L}\p{N}\s]/gu, (ch) => `\\${ch}`),
  escaped: (c) => `\\${c}`,
  posixClass: (text) => text,
  // A `]` right after `[` or `[^` is a literal in both syntaxes; ARE reads a `[` inside as an opener.
  bracketCharacter: (c) => (c === '[' || c === ']' ? `\\${c}` : c),
  groupOpen: (capturing) => (capturing ? '(' : '(?:'),
  character: (c) => c,
};

/** The PostgreSQL ARE that matches what the RE2 `pattern` matches. Throws UntranslatableRegexError. */
export function re2ToPostgres(pattern: string): string {
  return spellPortableRegex(pattern, ARE);
}
