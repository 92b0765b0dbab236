// A strict reader of the Prometheus text format (0.0.4) for tests: every sample line must be
// `name{labels} value`, every sample must belong to a family announced by # HELP and # TYPE, and label
// values are unescaped, so a test compares them with what was recorded.
import assert from 'node:assert/strict';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string;
  type: string;
  samples: Sample[];
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count'];

function parseValue(text: string, line: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  const value = Number(text);
  assert.ok(text !== '' && !Number.isNaN(value), `not a number in: ${line}`);
  return value;
}

/** `a="x",b="y\"z"` → { a: 'x', b: 'y"z' }, reading escapes one character at a time. */
function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const name = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(text.slice(i))?.[0];
    assert.ok(name, `bad label name in: ${line}`);
    i += name.length;
    assert.equal(text.slice(i, i + 2), '="', `expected =" after ${name} in: ${line}`);
    i += 2;
    let value = '';
    for (;;) {
      const c = text[i];
      assert.ok(c !== undefined, `unterminated label value in: ${line}`);
      i += 1;
      if (c === '"') break;
      if (c === '\\') {
        const next = text[i];
        i += 1;
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else assert.fail(`bad escape \\${next} in: ${line}`);
      } else {
        assert.notEqual(c, '\n', `raw line feed in: ${line}`);
        value += c;
      }
    }
    assert.ok(!Object.hasOwn(labels, name), `label ${name} repeated in: ${line}`);
    labels[name] = value;
    if (text[i] === ',') i += 1;
    else assert.equal(i, text.length, `expected , or } in: ${line}`);
  }
  return labels;
}

export function parseExposition(text: string): Map<string, Family> {
  assert.ok(text.endsWith('\n'), 'the exposition ends with a line feed');
  const families = new Map<string, Family>();
  for (const line of text.slice(0, -1).split('\n')) {
    const help = /^# HELP (\S+) (.*)$/.exec(line);
    if (help) {
      const [, name, doc] = help as unknown as [string, string, string];
      assert.ok(!families.has(name), `${name} announced twice`);
      families.set(name, { name, help: doc.replace(/\\n/g, '\n').replace(/\\\\/g, '\\'), type: '', samples: [] });
      continue;
    }
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      const family = families.get(type[1]!);
      assert.ok(family, `# TYPE before # HELP for ${type[1]}`);
      assert.equal(family.type, '', `${type[1]} typed twice`);
      family.type = type[2]!;
      continue;
    }
    assert.ok(!line.startsWith('#'), `unexpected comment: ${line}`);
    const match = SAMPLE_LINE.exec(line);
    assert.ok(match, `not a sample line: ${JSON.stringify(line)}`);
    const name = match[1]!;
    const sample: Sample = {
      name,
      labels: match[2] === undefined ? {} : parseLabels(match[2], line),
      value: parseValue(match[3]!, line),
    };
    let family = families.get(name);
    if (!family) {
      const suffix = HISTOGRAM_SUFFIXES.find((s) => name.endsWith(s));
      family = suffix ? families.get(name.slice(0, -suffix.length)) : undefined;
      assert.equal(family?.type, 'histogram', `sample ${name} belongs to no announced family`);
    }
    assert.ok(family, `sample ${name} belongs to no announced family`);
    assert.notEqual(family.type, '', `sample ${name} before its # TYPE`);
    family.samples.push(sample);
  }
  for (const family of families.values()) assert.notEqual(family.type, '', `${family.name} has no # TYPE`);
  return families;
}

/** The value of the sample `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const family of families.values()) {
    for (const sample of family.samples) {
      if (sample.name !== name) continue;
      if (Object.entries(labels).every(([key, value]) => sample.labels[key] === value)) return sample.value;
    }
  }
  return undefined;
}

/** Every histogram series: buckets in increasing `le`, counts never decreasing, `+Inf` equal to `_count`. */
export function assertHistogramsCumulative(families: Map<string, Family>): number {
  let checked = 0;
  for (const family of families.values()) {
    if (family.type !== 'histogram') continue;
    const series = new Map<string, Sample[]>();
    for (const sample of family.samples.filter((s) => s.name === `${family.name}_bucket`)) {
      const { le, ...own } = sample.labels;
      assert.ok(le !== undefined, `${family.name}_bucket without le`);
      const key = JSON.stringify(own);
      series.set(key, [...(series.get(key) ?? []), sample]);
    }
    for (const [key, buckets] of series) {
      const bounds = buckets.map((b) => parseValue(b.labels.le!, key));
      for (let i = 1; i < buckets.length; i++) {
        assert.ok(bounds[i]! > bounds[i - 1]!, `${family.name}${key}: le not increasing`);
        assert.ok(buckets[i]!.value >= buckets[i - 1]!.value, `${family.name}${key}: buckets not cumulative`);
      }
      assert.equal(bounds.at(-1), Infinity, `${family.name}${key}: last bucket is not +Inf`);
      const count = family.samples.find((s) => s.name === `${family.name}_count` && JSON.stringify(s.labels) === key);
      assert.equal(buckets.at(-1)!.value, count?.value, `${family.name}${key}: +Inf bucket differs from _count`);
      checked += 1;
    }
  }
  return checked;
}
