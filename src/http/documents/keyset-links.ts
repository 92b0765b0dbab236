// The links of a keyset page (docs/records.md, "Keyset pages"): self as asked, first and last as empty
// cursors, next and prev as the cursors of the page's last and first records. Filters, `_sort` and
// `fields` are repeated as the caller gave them, like the offset links.
import type { RecordValues } from '../../events/record-event.ts';
import { encodeCursor } from '../../query/keyset-cursor.ts';
import type { KeysetPage, ListQuery } from '../../query/list-query.ts';
import { listLink } from './list-link.ts';

/** `base`: the list's path, /v1/<resource> or a relation's to-many side. */
export function keysetLinks(base: string, query: ListQuery, page: KeysetPage, records: readonly RecordValues[], more: boolean) {
  const link = (side: 'after' | 'before', cursor: string) => listLink(base, query, [`page[${side}]=${cursor}`, `page[limit]=${query.limit}`]);
  const links: Record<string, string> = {
    self: link(page.side, encodeURIComponent(page.text)),
    first: link('after', ''),
  };
  const first = records[0];
  const last = records.at(-1);
  const fromEdge = page.values === null;
  // Beyond the page towards where it was read: known from the extra row. The other way: there is
  // the cursor's own position (unless the page starts at an end of the list).
  const followsAfter = page.side === 'after' ? more : !fromEdge;
  const followsBefore = page.side === 'before' ? more : !fromEdge;
  if (followsBefore) links.prev = first ? link('before', encodeCursor(query.sort, first)) : link('before', encodeURIComponent(page.text));
  if (followsAfter) links.next = last ? link('after', encodeCursor(query.sort, last)) : link('after', encodeURIComponent(page.text));
  links.last = link('before', '');
  return links;
}
