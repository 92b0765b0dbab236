// The portable reading of role-rule regexes, which config checks use without any database: it refuses
// exactly what the PostgreSQL rewriting refuses, with the same message, and accepts the rest.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { portableRegexProblem } from '../../src/tools/portable-regex.ts';
import { re2ToPostgres } from '../../src/store/postgres/re2-to-postgres.ts';

describe('portableRegexProblem', () => {
  it('accepts what every database can run the same way', () => {
    for (const pattern of [
      '\\bbar.',
      '(?is)^\\d+$',
      '(?P<x>a)[\\w-]\\p{Lu}',
      '\\Qa.b\\E',
      '[]a[:alpha:]]',
      '\\x{1F600}\\P{L}',
    ]) {
      assert.equal(portableRegexProblem(pattern), null, pattern);
    }
  });

  it('names what some database cannot, as the PostgreSQL rewriting does', () => {
    const refused: Array<[string, RegExp]> = [
      ['a(?i)b', /scoped flags/],
      ['(?i:ab)', /scoped flags/],
      ['\\p{Greek}', /\\p\{Greek\}/],
      ['(?U)a+', /ungreedy/],
      ['[\\D]', /\\D inside/],
      ['\\xZZ', /\\x escape/],
      ['[ab', /unterminated \[\.\.\.\]/],
    ];
    for (const [pattern, why] of refused) {
      const problem = portableRegexProblem(pattern);
      assert.match(problem ?? '', why, pattern);
      assert.match(problem ?? '', /^not supported on every database: /, pattern);
      assert.throws(() => re2ToPostgres(pattern), { message: problem! }, pattern);
    }
  });
});
