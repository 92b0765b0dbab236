// Where the records of a custom route (or createSvc's `records`) go: reads through the service, as
// /v1 reads, and each write in a transaction of its own, with its resource's hooks and its event.
import type { Principal } from '../model/principal.ts';
import { resolveAccess } from '../permissions/resolve-access.ts';
import type { LikePatternLimits } from '../query/like-pattern-limits.ts';
import { NO_COMPOUND } from '../query/parse-compound-query.ts';
import { parseListQuery } from '../query/parse-list-query.ts';
import type { Actor, RecordService, RequestMeta, WriteScope } from '../records/record-service.ts';
import { visibleRecord } from '../records/visible-record.ts';

const SYSTEM: Principal = Object.freeze({ kind: 'admin' });

function metaOf(actor: Actor): RequestMeta {
  return actor.system ? { ...actor.meta, principal: SYSTEM } : actor.meta;
}

export function serviceTarget(records: RecordService, likeLimits: LikePatternLimits): WriteScope {
  return {
    async get(resource, actor, id) {
      const result = await records.get(resource, metaOf(actor), id);
      return visibleRecord(result.record, result.attributes);
    },
    async list(resource, actor, query) {
      const meta = metaOf(actor);
      // Parsed as /v1 parses a list's query string (http/routes/read-queries.ts), with no includes.
      const readable = resolveAccess(resource, meta.principal, 'read').fields;
      const parsed = parseListQuery(query, resource, readable, likeLimits);
      const result = await records.list(resource, meta, { query: parsed, compound: NO_COMPOUND });
      return result.records.map((record) => visibleRecord(record, result.attributes));
    },
    create: (resource, actor, values) => records.transaction((scope) => scope.create(resource, actor, values)),
    update: (resource, actor, id, values) => records.transaction((scope) => scope.update(resource, actor, id, values)),
    remove: (resource, actor, id) => records.transaction((scope) => scope.remove(resource, actor, id)),
  };
}
