// POST /v1/:resource with an Idempotency-Key (a create or an upsert): the key is claimed and the
// record's answer stored in the write's own transaction, so the claim, the write and its answer commit together or not at all
// (idempotency/idempotency-store.ts, runInWrite): a create that dies with its node leaves nothing that
// would hold a retry back. POST /v1/operations does the same with its batch (operations-routes.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../model/principal.ts';
import { rightsOn } from '../documents/record-view.ts';
import type { Resource } from '../../resources/resource.ts';
import type { ReadResult } from '../../records/record-results.ts';
import type { UpsertResult } from '../../records/write-batch.ts';
import type { StoredResponse } from '../../idempotency/stored-response.ts';
import { requestFingerprint } from '../../idempotency/request-fingerprint.ts';
import type { AppContext } from '../../app-context.ts';
import { requestMeta } from '../routes/request-meta.ts';
import { recordDocument } from '../documents/resource-document.ts';
import { JSON_API_MEDIA_TYPE } from '../documents/json-api.ts';
import { sendAnswer } from './idempotent-answer.ts';
import type { Db } from '../../store/store-dialect.ts';

/** Keys are per caller: an API key's, a JWT subject's, or the admin token's. */
export function callerOf(principal: Principal): string {
  if (principal.kind === 'admin') return 'admin';
  return principal.kind === 'key' ? `key:${principal.keyId}` : `jwt:${principal.subject}`;
}

/** 201 with its Location; an upsert that updated answers 200 without one. */
function createdAnswer(resource: Resource, principal: Principal, result: ReadResult | UpsertResult): StoredResponse {
  const can = rightsOn(resource, principal, result.record);
  if ('created' in result && !result.created) {
    return {
      status: 200,
      headers: { 'Content-Type': JSON_API_MEDIA_TYPE },
      body: JSON.stringify(recordDocument(resource, result.record, result.attributes, undefined, can)),
    };
  }
  return {
    status: 201,
    headers: { Location: `/v1/${resource.name}/${String(result.record.id)}`, 'Content-Type': JSON_API_MEDIA_TYPE },
    body: JSON.stringify(recordDocument(resource, result.record, result.attributes, undefined, can)),
  };
}

/** `body`: the new record's fields, as the route hands them to the record service. */
export async function createIdempotently(
  ctx: Pick<AppContext, 'idempotency' | 'records'>,
  request: FastifyRequest,
  reply: FastifyReply,
  resource: Resource,
  key: string,
  body: unknown,
  clientId?: string,
  upsert?: string,
): Promise<string> {
  const meta = requestMeta(request);
  const { principal } = meta;
  // The role is part of the request: under another X-Service-Role the same body may write and show other fields.
  const role = principal.kind === 'admin' ? 'admin' : principal.role;
  // An upsert's field is part of the request (a plain create keeps its fingerprint as it was).
  const parts =
    upsert === undefined
      ? ['POST', `/v1/${resource.name}`, role, body ?? null, clientId ?? null]
      : ['POST', `/v1/${resource.name}`, role, body ?? null, clientId ?? null, upsert];
  const use = { caller: callerOf(principal), key, fingerprint: requestFingerprint(parts) };
  const outcome = await ctx.idempotency.runInWrite(use, async ({ first, complete }) => {
    const store = (trx: Db, written: ReadResult | UpsertResult) =>
      complete(trx, createdAnswer(resource, principal, written));
    const result =
      upsert === undefined
        ? await ctx.records.create(resource, meta, body, clientId, store, first)
        : await ctx.records.upsert(resource, meta, body, upsert, clientId, store, first);
    return createdAnswer(resource, principal, result);
  });
  return sendAnswer(reply, outcome);
}
