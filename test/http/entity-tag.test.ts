// Entity tags and the If-Match/If-None-Match lists they are compared with (RFC 9110 sections 8.8.3, 13.1).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { entityTagOf, matchesStrongly, matchesWeakly, parseEntityTags } from '../../src/http/documents/entity-tag.ts';

describe('entity tags', () => {
  it('tags a text by its bytes: the same text the same strong tag, another text another', () => {
    const tag = entityTagOf('{"data":1}');
    assert.match(tag, /^"[A-Za-z0-9_-]{43}"$/);
    assert.equal(entityTagOf('{"data":1}'), tag);
    assert.notEqual(entityTagOf('{"data":2}'), tag);
  });

  const scenarios: { value: string; parsed: ReturnType<typeof parseEntityTags> }[] = [
    { value: '*', parsed: '*' },
    { value: ' * ', parsed: '*' },
    { value: '"a"', parsed: [{ opaque: '"a"', weak: false }] },
    { value: 'W/"a"', parsed: [{ opaque: '"a"', weak: true }] },
    {
      value: '"a", W/"b",\t"c"',
      parsed: [
        { opaque: '"a"', weak: false },
        { opaque: '"b"', weak: true },
        { opaque: '"c"', weak: false },
      ],
    },
    // An entity tag may hold a comma; list syntax allows empty members.
    {
      value: '"a,b" , , "c"',
      parsed: [
        { opaque: '"a,b"', weak: false },
        { opaque: '"c"', weak: false },
      ],
    },
    { value: '""', parsed: [{ opaque: '""', weak: false }] },
    { value: '', parsed: [] },
    { value: 'a', parsed: [] },
    { value: '"a" "b"', parsed: [] },
    { value: '"a', parsed: [] },
    { value: 'w/"a"', parsed: [] },
    { value: '"a", *', parsed: [] },
    { value: '"a b"', parsed: [] },
  ];
  for (const { value, parsed } of scenarios) {
    it(`parses ${JSON.stringify(value)}`, () => {
      assert.deepEqual(parseEntityTags(value), parsed);
    });
  }

  it('compares strongly for If-Match and weakly for If-None-Match', () => {
    assert.equal(matchesStrongly(parseEntityTags('"x", "a"'), '"a"'), true);
    assert.equal(matchesStrongly(parseEntityTags('W/"a"'), '"a"'), false);
    assert.equal(matchesStrongly(parseEntityTags('*'), '"a"'), true);
    assert.equal(matchesStrongly(parseEntityTags('a'), '"a"'), false);
    assert.equal(matchesWeakly(parseEntityTags('W/"a"'), '"a"'), true);
    assert.equal(matchesWeakly(parseEntityTags('"b"'), '"a"'), false);
    assert.equal(matchesWeakly(parseEntityTags('*'), '"a"'), true);
  });
});
