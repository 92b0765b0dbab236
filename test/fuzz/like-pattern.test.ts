// Regression: a caller's `ilike` value such as `%a%a%a…%b` hung the process on SQLite, whose ILIKE ran
// the pattern as a backtracking RegExp (`^.*a.*a.*a…b$`) in svc_ilike. The in-memory matcher that
// replaced it must mean exactly what the RegExp meant, and take time bounded by pattern × text.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileLikePattern } from '../../src/tools/like-pattern.ts';
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
const patternChar = fc.constantFrom(
  'a',
  'A',
  'b',
  'ß',
  'é',
  'É',
  'ſ',
  's',
  'K',
  'k',
  '\u212a',
  '😀',
  '\n',
  '.',
  '*',
  '%',
  '%',
  '_',
  '\\',
);
const textChar = fc.constantFrom(
  'a',
  'A',
  'b',
  'ß',
  'é',
  'É',
  'ſ',
  's',
  'S',
  'K',
  'k',
  '\u212a',
  '😀',
  '\n',
  '.',
  '*',
  '%',
  '_',
  '\\',
);

describe('LIKE matching in memory', () => {
  it('agrees with the RegExp translation on every pattern and text', async (t) => {
    // Half the texts are made from the pattern (wildcards filled, letters case-flipped), so many match.
    const patternAndText = fc.array(patternChar, { maxLength: 8 }).chain((chars) => {
      const made = fc.tuple(
        ...chars.map((c) =>
          c === '%'
            ? fc.array(textChar, { maxLength: 2 }).map((x) => x.join(''))
            : c === '_'
              ? textChar
              : fc.constantFrom(c, c.toUpperCase(), c.toLowerCase()),
        ),
      );
      const text = fc.oneof(
        fc.array(textChar, { maxLength: 8 }).map((c) => c.join('')),
        made.map((parts) => parts.join('')),
      );
      return fc.tuple(fc.constant(chars.join('')), text);
    });
    const cases = await fuzz(3000, [patternAndText, fc.boolean()], async ([pattern, text], caseInsensitive) => {
      assert.equal(
        compileLikePattern(pattern, caseInsensitive).test(text),
        likeAsRegExp(pattern, caseInsensitive).test(text),
        JSON.stringify({ pattern, text, caseInsensitive }),
      );
    });
    report(t, 'like patterns', cases);
  });

  it('decides catastrophic patterns on long texts in bounded time', () => {
    const text = 'a'.repeat(20_000);
    for (const pattern of [
      '%a'.repeat(50) + '%b',
      '%' + '_%'.repeat(200) + 'b',
      '%'.repeat(5000) + 'b',
      '_'.repeat(19_999) + '%b',
      '%a%' + 'a'.repeat(100) + 'b%',
    ]) {
      for (const caseInsensitive of [false, true]) {
        const started = performance.now();
        assert.equal(compileLikePattern(pattern, caseInsensitive).test(text), false);
        assert.ok(
          performance.now() - started < 2_000,
          `${pattern.slice(0, 20)}… took ${performance.now() - started} ms`,
        );
      }
    }
    assert.equal(compileLikePattern('%a%a%a%', true).test('xAxAxA'), true);
  });

  it('costs text × longest segment, not text × pattern: a 6,000-character pattern on 200 KB', () => {
    // The earlier matcher went back to the last `%` on each mismatch: 6,000 × 200,000 steps, 5.6 s.
    const text = 'a'.repeat(200_000);
    for (const pattern of [`%${'a'.repeat(6_000)}b`, `${'a'.repeat(6_000)}%b`, `%${'a_'.repeat(3_000)}b`]) {
      for (const caseInsensitive of [false, true]) {
        const started = performance.now();
        assert.equal(compileLikePattern(pattern, caseInsensitive).test(text), false);
        assert.equal(compileLikePattern(pattern.replace(/b$/, 'a'), caseInsensitive).test(text), true);
        assert.ok(
          performance.now() - started < 1_000,
          `${pattern.slice(0, 20)}… took ${performance.now() - started} ms`,
        );
      }
    }
  });

  it('agrees with the RegExp translation on segments longer than one RegExp piece', async (t) => {
    // Segments are matched in pieces of 256 code points: a match must hold across the joints.
    const letter = fc.constantFrom('a', 'A', 'b', '_', '😀', 'ſ', 'S');
    const cases = await fuzz(
      200,
      [
        fc.array(letter, { minLength: 250, maxLength: 600 }),
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        fc.boolean(),
      ],
      async (chars, flip, caseInsensitive, wrap) => {
        const segment = chars.join('');
        const pattern = wrap ? `%${segment}%` : segment;
        // Texts around the segment: itself with `_` filled, and with one character changed near a joint.
        const filled = segment.replaceAll('_', 'x');
        const broken = [...filled];
        broken[256 + flip] = broken[256 + flip] === 'b' ? 'a' : 'b';
        for (const body of [filled, broken.join('')]) {
          const text = wrap ? `zz${body}zz` : body;
          assert.equal(
            compileLikePattern(pattern, caseInsensitive).test(text),
            likeAsRegExp(pattern, caseInsensitive).test(text),
            JSON.stringify({ caseInsensitive, wrap }),
          );
        }
      },
    );
    report(t, 'long segments', cases);
  });
});
