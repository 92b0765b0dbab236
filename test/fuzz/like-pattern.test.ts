// Regression: a caller's `ilike` value such as `%a%a%a…%b` hung the process on SQLite, whose ILIKE ran
// the pattern as a backtracking RegExp (`^.*a.*a.*a…b$`) in svc_ilike. The in-memory matcher that
// replaced it must mean exactly what the RegExp meant, and take time bounded by pattern × text.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileLikePattern } from '../../src/store/like-pattern.ts';
import { fuzz, report } from './fuzz-harness.ts';

/** The translation the matcher replaced, kept as the oracle of what LIKE means (on short inputs only). */
function likeAsRegExp(pattern: string, caseInsensitive: boolean): RegExp {
  const chars = [...pattern];
  let source = '';
  const literal = (c: string) => (/[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c);
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (char === '\\') source += literal(chars[++i] ?? '\\');
    else if (char === '%') source += '.*';
    else if (char === '_') source += '.';
    else source += literal(char);
  }
  return new RegExp(`^${source}$`, caseInsensitive ? 'isu' : 'su');
}

// Small alphabets, so patterns and texts often match: case pairs, wildcards, escapes, astral and special letters.
const patternChar = fc.constantFrom('a', 'A', 'b', 'ß', 'é', 'É', 'ſ', 's', 'K', 'k', '\u212a', '😀', '\n', '.', '*', '%', '%', '_', '\\');
const textChar = fc.constantFrom('a', 'A', 'b', 'ß', 'é', 'É', 'ſ', 's', 'S', 'K', 'k', '\u212a', '😀', '\n', '.', '*', '%', '_', '\\');

describe('LIKE matching in memory', () => {
  it('agrees with the RegExp translation on every pattern and text', async (t) => {
    // Half the texts are made from the pattern (wildcards filled, letters case-flipped), so many match.
    const patternAndText = fc.array(patternChar, { maxLength: 8 }).chain((chars) => {
      const made = fc.tuple(...chars.map((c) => (c === '%' ? fc.array(textChar, { maxLength: 2 }).map((x) => x.join('')) : c === '_' ? textChar : fc.constantFrom(c, c.toUpperCase(), c.toLowerCase()))));
      const text = fc.oneof(fc.array(textChar, { maxLength: 8 }).map((c) => c.join('')), made.map((parts) => parts.join('')));
      return fc.tuple(fc.constant(chars.join('')), text);
    });
    const cases = await fuzz(
      3000,
      [patternAndText, fc.boolean()],
      async ([pattern, text], caseInsensitive) => {
        assert.equal(compileLikePattern(pattern, caseInsensitive).test(text), likeAsRegExp(pattern, caseInsensitive).test(text), JSON.stringify({ pattern, text, caseInsensitive }));
      },
    );
    report(t, 'like patterns', cases);
  });

  it('decides catastrophic patterns on long texts in bounded time', () => {
    const text = 'a'.repeat(20_000);
    for (const pattern of ['%a'.repeat(50) + '%b', '%' + '_%'.repeat(200) + 'b', '%'.repeat(5000) + 'b', '_'.repeat(19_999) + '%b', '%a%' + 'a'.repeat(100) + 'b%']) {
      for (const caseInsensitive of [false, true]) {
        const started = performance.now();
        assert.equal(compileLikePattern(pattern, caseInsensitive).test(text), false);
        assert.ok(performance.now() - started < 2_000, `${pattern.slice(0, 20)}… took ${performance.now() - started} ms`);
      }
    }
    assert.equal(compileLikePattern('%a%a%a%', true).test('xAxAxA'), true);
  });
});
