// SQL LIKE matching in memory: `%` any run of characters, `_` one character, `\` escapes the next one.
// Shared semantics of the dialects' `like` (case-sensitive) and `ilike` (case-insensitive, Unicode).
// The pattern is cut at each `%` into segments of fixed length: the first must match at the start, the
// last at the end, and each middle one at its leftmost place after the one before (the leftmost place
// never loses a match: what follows may then only start sooner). No segment is tried twice at one place,
// so a test costs at most text × longest segment steps, spent in the RegExp engine (a segment has no
// quantifier, so nothing backtracks).

export interface LikePattern {
  test(text: string): boolean;
}

const REGEXP_SPECIAL = /[\\^$.*+?()[\]{}|/]/;

/** The RegExp engine refuses very long sources (stack, size): long segments are matched in pieces. */
const PIECE_LENGTH = 256;

/** One `%`-free part of the pattern: `length` code points, matched piece by piece. */
interface Segment {
  length: number;
  /** Sticky RegExps, one per piece, matched one after the other. */
  pieces: RegExp[];
  /** The first piece, searching (`g`). */
  first: RegExp;
}

/** The pattern's `%`-separated segments, each as RegExp sources of one code point (`.` for `_`). */
function tokenize(pattern: string): string[][] {
  const segments: string[][] = [[]];
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    let char = chars[i]!;
    if (char === '%') {
      segments.push([]);
      continue;
    }
    let source = '.';
    if (char !== '_') {
      // A trailing escape character escapes nothing: it stands for itself.
      if (char === '\\') char = chars[++i] ?? '\\';
      source = REGEXP_SPECIAL.test(char) ? `\\${char}` : char;
    }
    segments.at(-1)!.push(source);
  }
  return segments;
}

function compileSegment(tokens: readonly string[], flags: string): Segment {
  const pieces: RegExp[] = [];
  for (let at = 0; at < tokens.length; at += PIECE_LENGTH)
    pieces.push(new RegExp(tokens.slice(at, at + PIECE_LENGTH).join(''), `${flags}y`));
  return { length: tokens.length, pieces, first: new RegExp(pieces[0]?.source ?? '', `${flags}g`) };
}

/** Where the segment ends when it matches at `from` (pieces after the first from `from`), or -1. */
function matchPieces(segment: Segment, text: string, from: number, firstPiece: number): number {
  let at = from;
  for (let i = firstPiece; i < segment.pieces.length; i++) {
    const piece = segment.pieces[i]!;
    piece.lastIndex = at;
    if (!piece.test(text)) return -1;
    at = piece.lastIndex;
  }
  return at;
}

/** End of the segment's leftmost match starting at or after `from`, or -1. */
function findSegment(segment: Segment, text: string, from: number): number {
  let start = from;
  for (;;) {
    segment.first.lastIndex = start;
    const found = segment.first.exec(text);
    if (found === null) return -1;
    const end = matchPieces(segment, text, found.index + found[0].length, 1);
    if (end >= 0) return end;
    start = found.index + ((text.codePointAt(found.index) ?? 0) > 0xffff ? 2 : 1);
  }
}

/** The UTF-16 index `count` code points before the end of `text`, or -1 when it has fewer. */
function codePointsBeforeEnd(text: string, count: number): number {
  let at = text.length;
  for (let n = 0; n < count; n++) {
    if (at === 0) return -1;
    const low = text.charCodeAt(at - 1);
    const high = at >= 2 ? text.charCodeAt(at - 2) : 0;
    at -= low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? 2 : 1;
  }
  return at;
}

export function compileLikePattern(pattern: string, caseInsensitive: boolean): LikePattern {
  // `s`: `_` matches a newline too; `u`: one code point, Unicode simple case folding with `i`.
  const flags = caseInsensitive ? 'isu' : 'su';
  const segments = tokenize(pattern).map((tokens) => compileSegment(tokens, flags));
  const head = segments[0]!;
  const tail = segments.at(-1)!;
  const middles = segments.slice(1, -1).filter((s) => s.length > 0);
  if (segments.length === 1) {
    return { test: (text) => matchPieces(head, text, 0, 0) === text.length };
  }
  return {
    test(text) {
      let at = matchPieces(head, text, 0, 0);
      for (const middle of middles) {
        if (at < 0) return false;
        at = findSegment(middle, text, at);
      }
      if (at < 0) return false;
      // The last segment has a fixed length in code points: it can only start that far before the end.
      const start = codePointsBeforeEnd(text, tail.length);
      return start >= at && matchPieces(tail, text, start, 0) === text.length;
    },
  };
}
