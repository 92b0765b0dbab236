// The languages a resource's full-text search may use (docs/search.md). Each is a text-search
// configuration PostgreSQL ships with; `simple` lowercases words and stems nothing, the others also
// stem and drop their language's common words. SQLite stems English only (FTS5's porter tokenizer).
export const SEARCH_LANGUAGES = [
  'simple',
  'arabic',
  'danish',
  'dutch',
  'english',
  'finnish',
  'french',
  'german',
  'greek',
  'hungarian',
  'indonesian',
  'irish',
  'italian',
  'lithuanian',
  'nepali',
  'norwegian',
  'portuguese',
  'romanian',
  'russian',
  'spanish',
  'swedish',
  'tamil',
  'turkish',
] as const;

export type SearchLanguage = (typeof SEARCH_LANGUAGES)[number];

export const DEFAULT_SEARCH_LANGUAGE: SearchLanguage = 'simple';
