// The JSON text of a list page. A page the record service reused from its cache comes back as the same
// records array, so its text is kept with it (WeakMap: it goes when the page does) and a repeated list
// is not built and stringified again: that was a third of a cached list's time. The text also depends
// on how the request spelled its query (the links carry it back) and on the attributes shown. Its ETag
// is hashed once with it and kept beside it.
import type { RecordValues } from '../../model/record-values.ts';
import type { ListResult } from '../../records/record-service.ts';
import type { Resource } from '../../resources/resource.ts';
import { listDocument } from './resource-document.ts';
import { entityTagOf } from './entity-tag.ts';
import type { TaggedBody } from './record-view.ts';

/** Spellings kept per page: enough for the usual few, bounded against a client varying them forever. */
const MAX_SPELLINGS = 4;

const bodies = new WeakMap<readonly RecordValues[], Map<string, TaggedBody>>();

export function listBody(resource: Resource, result: ListResult): TaggedBody {
  const { records, attributes, total, query, more, can } = result;
  // Included records are read anew for each request, and a relation's list has its own links: not kept.
  if (result.included !== undefined || result.path !== undefined) {
    const body = JSON.stringify(
      listDocument(resource, records, attributes, total, query, {
        path: result.path,
        included: result.included,
        more,
        ...(can ? { can } : {}),
      }),
    );
    return { body, tag: entityTagOf(body) };
  }
  const spelling = JSON.stringify([
    resource.name,
    attributes,
    total,
    query.offset,
    query.limit,
    query.carried,
    query.pageStyle,
    query.keyset?.text,
    more,
    // A cached page is shared by callers who read the same rows but may change different ones.
    can?.map((rights) => (rights.update ? 'u' : '-') + (rights.delete ? 'd' : '-')).join(''),
  ]);
  let texts = bodies.get(records);
  const kept = texts?.get(spelling);
  if (kept !== undefined) return kept;
  const body = JSON.stringify(
    listDocument(resource, records, attributes, total, query, { more, ...(can ? { can } : {}) }),
  );
  const tagged = { body, tag: entityTagOf(body) };
  if (!texts) bodies.set(records, (texts = new Map()));
  if (texts.size >= MAX_SPELLINGS) texts.clear();
  texts.set(spelling, tagged);
  return tagged;
}
