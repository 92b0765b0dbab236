// Runs a POST whose work is not one transaction (POST /token) under its Idempotency-Key and a lease
// (docs/records.md, "Idempotent creates"): the first request runs and its answer is kept; a retry with
// the same key and request gets that answer again, marked `Idempotency-Replayed: true`. A request that
// fails gives its key back, so a retry runs again. Creates claim inside their transaction instead
// (idempotent-create.ts).
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { IdempotencyStore, KeyUse } from '../../idempotency/idempotency-store.ts';
import type { StoredResponse } from '../../idempotency/stored-response.ts';
import { IDEMPOTENCY_REPLAYED_HEADER } from '../../idempotency/idempotency-key-header.ts';
import { asJsonApi, JSON_API_MEDIA_TYPE } from '../documents/json-api.ts';

export interface IdempotentOutcome {
  response: StoredResponse;
  replayed: boolean;
}

/**
 * `run` does the request while it holds the key (`attempt`) and answers what it sent; it stores that
 * answer itself (IdempotencyStore.complete), in its write's transaction where it has one.
 */
export async function runIdempotently(
  store: IdempotencyStore,
  use: KeyUse,
  log: FastifyBaseLogger,
  run: (attempt: string) => Promise<StoredResponse>,
): Promise<IdempotentOutcome> {
  const claimed = await store.claim(use);
  if (claimed.kind === 'replay') return { response: claimed.response, replayed: true };
  try {
    return { response: await run(claimed.attempt), replayed: false };
  } catch (error) {
    // Not given back, the key stays held until its lease ends: retries get 409 until then.
    await store
      .release(use, claimed.attempt)
      .catch((releaseError: unknown) => log.warn({ err: releaseError }, 'giving an Idempotency-Key back failed'));
    throw error;
  }
}

/** Sends a kept (or just made) answer; the handler returns what this returns. */
export function sendAnswer(reply: FastifyReply, { response, replayed }: IdempotentOutcome): string {
  const { 'Content-Type': type, ...headers } = response.headers;
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  if (replayed) reply.header(IDEMPOTENCY_REPLAYED_HEADER, 'true');
  // The JSON:API type, or it with the atomic extension's parameter (POST /v1/operations): no charset added.
  if (type?.startsWith(JSON_API_MEDIA_TYPE)) asJsonApi(reply).type(type);
  else if (type !== undefined) reply.type(type);
  reply.code(response.status);
  return response.body;
}
