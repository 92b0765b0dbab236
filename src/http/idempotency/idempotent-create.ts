// POST /v1/:resource with an Idempotency-Key: the key is claimed and the created record's answer stored
// in the create's own transaction, so the claim, the write and its answer commit together or not at all
// (idempotency/idempotency-store.ts, runInWrite): a create that dies with its node leaves nothing that
// would hold a retry back.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../model/principal.ts';
import type { Resource } from '../../resources/resource.ts';
import type { ReadResult } from '../../records/record-results.ts';
import type { StoredResponse } from '../../idempotency/stored-response.ts';
import { requestFingerprint } from '../../idempotency/request-fingerprint.ts';
import type { AppContext } from '../../app-context.ts';
import { requestMeta } from '../routes/request-meta.ts';
import { recordDocument } from '../documents/resource-document.ts';
import { JSON_API_MEDIA_TYPE } from '../documents/json-api.ts';
import { sendAnswer } from './idempotent-answer.ts';

/** Keys are per caller: an API key's, a JWT subject's, or the admin token's. */
function callerOf(principal: Principal): string {
  if (principal.kind === 'admin') return 'admin';
  return principal.kind === 'key' ? `key:${principal.keyId}` : `jwt:${principal.subject}`;
}

function createdAnswer(resource: Resource, result: ReadResult): StoredResponse {
  return {
    status: 201,
    headers: { Location: `/v1/${resource.name}/${String(result.record.id)}`, 'Content-Type': JSON_API_MEDIA_TYPE },
    body: JSON.stringify(recordDocument(resource, result.record, result.attributes)),
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
): Promise<string> {
  const meta = requestMeta(request);
  const { principal } = meta;
  // The role is part of the request: under another X-Service-Role the same body may write and show other fields.
  const role = principal.kind === 'admin' ? 'admin' : principal.role;
  const use = {
    caller: callerOf(principal),
    key,
    fingerprint: requestFingerprint(['POST', `/v1/${resource.name}`, role, body ?? null, clientId ?? null]),
  };
  const outcome = await ctx.idempotency.runInWrite(use, async (claim) => {
    let attempt = '';
    const result = await ctx.records.create(
      resource,
      meta,
      body,
      clientId,
      (trx, written) => ctx.idempotency.complete(trx, use, attempt, createdAnswer(resource, written)),
      async (trx) => {
        attempt = await claim(trx);
      },
    );
    return createdAnswer(resource, result);
  });
  return sendAnswer(reply, outcome);
}
