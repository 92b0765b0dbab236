// Where the records of a custom route (or createSvc's `records`) go: reads through the service, as
// /v1 reads, and each write in a transaction of its own, with its resource's hooks and its event.
import type { Principal } from '../auth/principal.ts';
import type { Actor, RecordService, RequestMeta, WriteScope } from '../records/record-service.ts';
import { visibleRecord } from '../records/visible-record.ts';

const SYSTEM: Principal = Object.freeze({ kind: 'admin' });

function metaOf(actor: Actor): RequestMeta {
  return actor.system ? { ...actor.meta, principal: SYSTEM } : actor.meta;
}

export function serviceTarget(records: RecordService): WriteScope {
  return {
    async get(resource, actor, id) {
      const result = await records.get(resource, metaOf(actor), id);
      return visibleRecord(result.record, result.attributes);
    },
    async list(resource, actor, query) {
      const result = await records.list(resource, metaOf(actor), query);
      return result.records.map((record) => visibleRecord(record, result.attributes));
    },
    create: (resource, actor, values) => records.transaction((scope) => scope.create(resource, actor, values)),
    update: (resource, actor, id, values) => records.transaction((scope) => scope.update(resource, actor, id, values)),
    remove: (resource, actor, id) => records.transaction((scope) => scope.remove(resource, actor, id)),
  };
}
