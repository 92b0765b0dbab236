// Entity tags (RFC 9110 section 8.8.3) of the documents svc answers, and the comparisons the
// conditional headers make with them (section 13.1). A tag is a hash of the answered document's bytes,
// so it is per view: two callers shown different fields of one row get different tags, and a tag
// changes exactly when the document it was given with would.
import { hash } from 'node:crypto';

/** `If-Match`/`If-None-Match` as sent: `*`, or the tags listed (a malformed list names none). */
export type EntityTagCondition = '*' | readonly EntityTag[];

export interface EntityTag {
  /** The opaque tag with its quotes, as it appears in an `ETag` header. */
  opaque: string;
  weak: boolean;
}

/** The strong tag of a document's text: SHA-256, base64url, quoted. */
export function entityTagOf(body: string): string {
  return `"${hash('sha256', body, 'base64url')}"`;
}

/** One list member: optional `W/`, then a quoted opaque tag (etagc: `!`, `#`-`~`, obs-text). */
const LIST_MEMBER = /[ \t]*(W\/)?("[\x21\x23-\x7e\x80-\xff]*")[ \t]*(?:,|$)/y;
const EMPTY_MEMBER = /[ \t]*,/y;

/**
 * The tags of an `If-Match`/`If-None-Match` value, or `*`. A value that is not a valid list names no
 * tag at all: it can never match, so If-Match refuses the write and If-None-Match answers in full.
 */
export function parseEntityTags(value: string): EntityTagCondition {
  if (value.trim() === '*') return '*';
  const tags: EntityTag[] = [];
  let at = 0;
  while (at < value.length) {
    // The list syntax allows empty members (`"a", , "b"`).
    EMPTY_MEMBER.lastIndex = at;
    if (EMPTY_MEMBER.test(value)) {
      at = EMPTY_MEMBER.lastIndex;
      continue;
    }
    LIST_MEMBER.lastIndex = at;
    const member = LIST_MEMBER.exec(value);
    if (!member) return value.slice(at).trim() === '' ? tags : [];
    tags.push({ opaque: member[2]!, weak: member[1] !== undefined });
    at = LIST_MEMBER.lastIndex;
  }
  return tags;
}

/** If-Match's strong comparison: a weak tag never matches. `*` matches any current representation. */
export function matchesStrongly(condition: EntityTagCondition, tag: string): boolean {
  return condition === '*' || condition.some((listed) => !listed.weak && listed.opaque === tag);
}

/** If-None-Match's weak comparison: `W/"x"` and `"x"` match each other. */
export function matchesWeakly(condition: EntityTagCondition, tag: string): boolean {
  return condition === '*' || condition.some((listed) => listed.opaque === tag);
}
