// `_search` text → terms: words of letters, digits and marks in any script, `word*` prefixes and
// quoted phrases; everything else separates words, so no operator of FTS5 or tsquery survives.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_SEARCH_LENGTH, MAX_SEARCH_WORDS, parseSearch } from '../../src/query/parse-search.ts';

describe('parseSearch', () => {
  it('reads words, prefixes and phrases', () => {
    assert.deepEqual(parseSearch('apple pie'), [
      { kind: 'word', word: 'apple' },
      { kind: 'word', word: 'pie' },
    ]);
    assert.deepEqual(parseSearch('app* "hot apple pie" "single"'), [
      { kind: 'prefix', word: 'app' },
      { kind: 'phrase', words: ['hot', 'apple', 'pie'] },
      { kind: 'word', word: 'single' },
    ]);
    assert.deepEqual(parseSearch('"unclosed phrase'), [{ kind: 'phrase', words: ['unclosed', 'phrase'] }]);
  });

  it('keeps letters of every script and combining marks, and splits on everything else', () => {
    assert.deepEqual(parseSearch('École naïve 東京 e\u0301t\u00e9'), [
      { kind: 'word', word: 'École' },
      { kind: 'word', word: 'naïve' },
      { kind: 'word', word: '東京' },
      { kind: 'word', word: 'e\u0301té' },
    ]);
    assert.deepEqual(
      parseSearch("a:b|c&d!(e) {f} NEAR/2 -g ^h 'i'"),
      ['a', 'b', 'c', 'd', 'e', 'f', 'NEAR', '2', 'g', 'h', 'i'].map((word) => ({ kind: 'word', word })),
    );
    assert.deepEqual(
      parseSearch('x * y'),
      [
        { kind: 'word', word: 'x' },
        { kind: 'word', word: 'y' },
      ],
      'a star apart from a word is no prefix',
    );
  });

  it('bounds the text, the words and the prefixes', () => {
    assert.throws(() => parseSearch('a'.repeat(MAX_SEARCH_LENGTH + 1)), /at most 256 characters/);
    assert.doesNotThrow(() => parseSearch('w '.repeat(MAX_SEARCH_WORDS)));
    assert.throws(() => parseSearch('w '.repeat(MAX_SEARCH_WORDS + 1)), /at most 16 words/);
    assert.throws(() => parseSearch(`"${'w '.repeat(MAX_SEARCH_WORDS + 1)}"`), /at most 16 words/);
    assert.throws(() => parseSearch('a*'), /prefix/);
    assert.throws(() => parseSearch('*** "" !?'), /at least one word/);
    assert.throws(() => parseSearch(''), /at least one word/);
  });
});
