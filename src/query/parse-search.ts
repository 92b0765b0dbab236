// The `_search` parameter's text → search terms (docs/search.md): words, `word*` prefixes and
// `"quoted phrases"`, every one required. A term keeps only letters, digits and combining marks, the
// characters both databases' tokenizers make words of; everything else separates words. So nothing a
// caller types reaches a database's query syntax (FTS5's AND/OR/NEAR/column filters, tsquery's
// operators): the store quotes each word, and there is no operator left to quote.
import type { SearchTerm } from '../store/search-index.ts';

/** Characters of `_search`: a search box's input, not a document. */
export const MAX_SEARCH_LENGTH = 256;
/** Words of one search, phrases' words included: each is a lookup in the index. */
export const MAX_SEARCH_WORDS = 16;
/** A prefix reads every word that starts with it: one letter would read a large part of the index. */
export const MIN_PREFIX_LENGTH = 2;

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
/** A quoted phrase (its closing quote may be missing), or a word with an optional `*` right after it. */
const TERM = /"([^"]*)"?|([\p{L}\p{N}\p{M}]+)(\*?)/gu;

/** The terms of `text`; throws an Error whose message says what is wrong with it. */
export function parseSearch(text: string): SearchTerm[] {
  if ([...text].length > MAX_SEARCH_LENGTH) throw new Error(`at most ${MAX_SEARCH_LENGTH} characters`);
  const terms: SearchTerm[] = [];
  let words = 0;
  for (const found of text.matchAll(TERM)) {
    const [, phrase, word, star] = found;
    if (phrase !== undefined) {
      const inside = phrase.match(WORD) ?? [];
      words += inside.length;
      if (inside.length === 1) terms.push({ kind: 'word', word: inside[0]! });
      else if (inside.length > 1) terms.push({ kind: 'phrase', words: inside });
    } else if (word !== undefined) {
      words++;
      if (star === '*') {
        if ([...word].length < MIN_PREFIX_LENGTH)
          throw new Error(`a prefix (word*) needs at least ${MIN_PREFIX_LENGTH} letters or digits: '${word}*'`);
        terms.push({ kind: 'prefix', word });
      } else terms.push({ kind: 'word', word });
    }
    if (words > MAX_SEARCH_WORDS) throw new Error(`at most ${MAX_SEARCH_WORDS} words`);
  }
  if (terms.length === 0) throw new Error('give at least one word (letters or digits)');
  return terms;
}
