// Patterns that make a backtracking engine run for minutes (^(a+)+$ against 60 a's and a '!') are
// answered at once: field `pattern`s and role-rule `regex` filters run on RE2 (linear time). Patterns RE2
// cannot run (backreferences, lookaround) are refused when the config is checked, with their path.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileLinearRegex } from '../../src/tools/linear-regex.ts';
import { re2ToPostgres } from '../../src/store/postgres/re2-to-postgres.ts';
import { UntranslatableRegexError } from '../../src/tools/portable-regex.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { validateConfig } from '../../src/resources/config-loader.ts';

const EVIL = '^(a+)+$';
const ATTACK = `${'a'.repeat(60)}!`;

describe('linear-time regular expressions', () => {
  it('matches what JavaScript matches on ordinary patterns', () => {
    const cases: Array<[string, string, boolean]> = [
      ['^[a-z]+$', 'hello', true],
      ['^[a-z]+$', 'Hello', false],
      ['\\d{3}-\\d{4}', 'call 555-1234 now', true],
      ['^\\p{Lu}', 'Élan', true],
      ['\\bbar', 'foo bar', true],
      ['a.b', 'a\nb', false],
      ['(?i)ABC', 'xabcx', true],
    ];
    for (const [pattern, text, expected] of cases) {
      assert.equal(compileLinearRegex(pattern).test(text), expected, `${pattern} on ${JSON.stringify(text)}`);
      assert.equal(
        new RegExp(pattern.replace('(?i)', ''), pattern.startsWith('(?i)') ? 'iu' : 'u').test(text),
        expected,
      );
    }
  });

  it('answers a catastrophic pattern at once', () => {
    assert.equal(compileLinearRegex(EVIL).test(ATTACK), false);
    assert.equal(compileLinearRegex(EVIL).test('a'.repeat(100_000)), true);
  });

  it('refuses backreferences and lookaround at config check, with the path', () => {
    const { problems } = validateConfig({
      resources: {
        notes: {
          fields: { code: { type: 'string', pattern: '(a)\\1' } },
          permissions: { reader: { read: { filter: { code: { regex: '(?=a)b' } } } } },
        },
      },
    });
    const paths = problems.map((p) => p.path);
    assert.ok(paths.includes('resources.notes.fields.code.pattern'), JSON.stringify(problems));
    assert.ok(paths.includes('resources.notes.permissions.reader.read.filter.code.regex'), JSON.stringify(problems));
  });
});

describe('role-rule regexes mean the same on every database', () => {
  it('translates RE2 syntax into PostgreSQL ARE', () => {
    assert.equal(re2ToPostgres('\\bbar.'), '\\ybar[^\\n]');
    assert.equal(re2ToPostgres('(?is)^\\d+$'), '(?i)^[0-9]+$');
    assert.equal(re2ToPostgres('(?P<x>a)[\\w-]\\p{Lu}'), '(a)[0-9A-Za-z_-][[:upper:]]');
    assert.equal(re2ToPostgres('\\Qa.b\\E'), 'a\\.b');
  });

  it('refuses at config check what PostgreSQL could not run the same way, with the path', () => {
    for (const pattern of ['a(?i)b', '(?i:ab)', '\\p{Greek}', '(?U)a+', '[\\D]']) {
      assert.throws(() => re2ToPostgres(pattern), UntranslatableRegexError, pattern);
      const { problems } = validateConfig({
        resources: {
          notes: {
            fields: { code: { type: 'string' } },
            permissions: { reader: { read: { filter: { code: { regex: pattern } } } } },
          },
        },
      });
      assert.deepEqual(
        problems.map((p) => p.path),
        ['resources.notes.permissions.reader.read.filter.code.regex'],
        pattern,
      );
    }
  });
});

for (const dialect of testDialects()) {
  describe(`a catastrophic field pattern (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect, {
        resources: {
          notes: {
            fields: { code: { type: 'string', pattern: EVIL } },
            permissions: { writer: { create: true, read: true } },
          },
        },
      });
    });
    after(async () => t.close());

    it('refuses a hostile value with 400 at once instead of hanging', async () => {
      const writer = await t.as('writer');
      const refused = await t.request({ method: 'POST', url: '/v1/notes', auth: writer, payload: { code: ATTACK } });
      assert.equal(refused.statusCode, 400);
      assert.equal(
        refused.json<{ errors: Array<{ source: { pointer: string } }> }>().errors[0]!.source.pointer,
        '/data/attributes/code',
      );
      const accepted = await t.request({ method: 'POST', url: '/v1/notes', auth: writer, payload: { code: 'aaaa' } });
      assert.equal(accepted.statusCode, 201);
    });
  });
}
