// interpolateEnv: `${VAR}` and `${VAR:-default}` on string values, nothing else.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { interpolateEnv } from '../../src/config/interpolate-env.ts';

const ENV = { HOST_NAME: 'db.internal', EMPTY: '', PORT: '5432', QUOTED: 'a": b, [c]' };

describe('interpolateEnv', () => {
  const SCENARIOS: { name: string; input: string; output: string }[] = [
    { name: 'a set variable', input: '${HOST_NAME}', output: 'db.internal' },
    { name: 'a set variable with a default', input: '${HOST_NAME:-localhost}', output: 'db.internal' },
    { name: 'an unset variable with a default', input: '${MISSING:-localhost}', output: 'localhost' },
    { name: 'an empty variable with a default', input: '${EMPTY:-fallback}', output: 'fallback' },
    { name: 'an empty default', input: '${MISSING:-}', output: '' },
    {
      name: 'a default holding a colon and slashes',
      input: '${MISSING:-sqlite:./.svc/data.db}',
      output: 'sqlite:./.svc/data.db',
    },
    {
      name: 'several expressions in one string',
      input: 'postgres://${HOST_NAME}:${PORT}/app',
      output: 'postgres://db.internal:5432/app',
    },
    { name: 'a value with quotes and YAML punctuation, kept as is', input: '${QUOTED}', output: 'a": b, [c]' },
    { name: 'an escaped $${', input: 'literal $${HOST_NAME}', output: 'literal ${HOST_NAME}' },
    { name: 'a session variable, left alone', input: '$userId', output: '$userId' },
    { name: 'a bare $VAR, left alone', input: '$HOST_NAME', output: '$HOST_NAME' },
    { name: 'text without expressions', input: 'plain', output: 'plain' },
  ];
  for (const scenario of SCENARIOS) {
    it(`interpolates ${scenario.name}`, () => {
      const result = interpolateEnv({ value: scenario.input }, ENV);
      assert.deepEqual(result.problems, []);
      assert.deepEqual(result.value, { value: scenario.output });
    });
  }

  it('walks nested objects and lists, and leaves keys and non-strings alone', () => {
    const input = { '${HOST_NAME}': { list: ['${PORT}', 3, true, null, { deep: '${MISSING:-x}' }] } };
    const result = interpolateEnv(input, ENV);
    assert.deepEqual(result.value, { '${HOST_NAME}': { list: ['5432', 3, true, null, { deep: 'x' }] } });
    assert.deepEqual([...result.interpolated].sort(), ['/${HOST_NAME}/list/0', '/${HOST_NAME}/list/4/deep']);
  });

  it('marks only the strings that held an expression', () => {
    const result = interpolateEnv({ server: { port: '${PORT}', host: '3000' } }, ENV);
    assert.deepEqual([...result.interpolated], ['/server/port']);
  });

  it('does not change its input', () => {
    const input = { a: { b: '${PORT}' } };
    interpolateEnv(input, ENV);
    assert.deepEqual(input, { a: { b: '${PORT}' } });
  });

  it('keeps a __proto__ key as a key', () => {
    const input = JSON.parse('{"__proto__": {"polluted": "${PORT}"}}') as unknown;
    const result = interpolateEnv(input, ENV);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(Object.keys(result.value as object), ['__proto__']);
  });

  const PROBLEMS: { name: string; input: string; message: RegExp }[] = [
    {
      name: 'an unset variable without a default',
      input: '${MISSING}',
      message: /environment variable MISSING is not set \(write \$\{MISSING:-\} to make it optional\)/,
    },
    { name: 'a malformed name', input: '${1ABC}', message: /malformed \$\{1ABC\}/ },
    { name: 'an unknown modifier', input: '${HOST_NAME:?required}', message: /malformed/ },
    { name: 'an unclosed expression', input: 'x ${HOST_NAME', message: /unclosed/ },
  ];
  for (const scenario of PROBLEMS) {
    it(`reports ${scenario.name} at the value's path`, () => {
      const result = interpolateEnv({ auth: { email: { smtpUrl: scenario.input } } }, ENV);
      assert.equal(result.problems.length, 1);
      assert.equal(result.problems[0]?.path, 'auth.email.smtpUrl');
      assert.match(result.problems[0]?.message ?? '', scenario.message);
    });
  }

  it('reports every unset variable', () => {
    const result = interpolateEnv({ a: '${X1}', b: ['${X2}'] }, {});
    assert.deepEqual(
      result.problems.map((p) => p.path),
      ['a', 'b.0'],
    );
  });
});
