// POST /token with an Idempotency-Key. The caller has no key yet: its keys are scoped by the email it
// signs in with. The answer holds the new key's secret, so it is kept sealed with the password the
// request sent (idempotency/sealed-answer.ts): a retry must send the same credentials to get it, and
// one with another password is a different request (422). The key is issued by the identity
// component in its own transaction, so the answer is stored right after, not with it: a crash in
// between leaves the key held until its lease ends, then a retry issues another key (the first one
// was never shown to anyone).
import { createHash } from 'node:crypto';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { IdempotencyStore, KeyUse, WriteOutcome } from '../../idempotency/idempotency-store.ts';
import type { TokenRequest } from '../../auth/keys/token-request.ts';
import { ApiError } from '../../errors/api-error.ts';
import { IDEMPOTENCY_KEY_HEADER } from '../../idempotency/idempotency-key-header.ts';
import { requestFingerprint } from '../../idempotency/request-fingerprint.ts';
import { seal, unseal } from '../../idempotency/sealed-answer.ts';
import type { StoredResponse } from '../../idempotency/stored-response.ts';
import type { AppContext } from '../../app-context.ts';
import { sendAnswer } from './idempotent-answer.ts';

export const TOKEN_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Runs the request under its key and a lease: the key is claimed in a row of its own first, `run` does
 * the request while it holds the key (`attempt`), stores its answer (IdempotencyStore.completeAlone) and
 * answers what it sent. A request that fails gives its key back, so a retry runs again.
 */
async function runIdempotently(
  store: IdempotencyStore,
  use: KeyUse,
  log: FastifyBaseLogger,
  run: (attempt: string) => Promise<StoredResponse>,
): Promise<WriteOutcome> {
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

export async function issueIdempotently(
  ctx: Pick<AppContext, 'auth' | 'idempotency'>,
  request: FastifyRequest,
  reply: FastifyReply,
  tokenRequest: TokenRequest,
  key: string,
): Promise<string> {
  const { idempotency } = ctx;
  const { password: givenPassword, ...rest } = tokenRequest;
  // The route sends only email-and-password requests here.
  const password = givenPassword ?? '';
  // Emails are matched in any letter case (docs/authentication.md): so are retries.
  const email = (tokenRequest.email ?? '').toLowerCase();
  const use = {
    caller: `token:${createHash('sha256').update(email).digest('hex')}`,
    key,
    // Without the password: the table must hold nothing that checks a guessed password quickly.
    fingerprint: requestFingerprint(['POST', '/token', { ...rest, email }]),
  };
  const context = `${use.caller}\n${use.fingerprint}`;
  const outcome = await runIdempotently(idempotency, use, request.log, async (attempt) => {
    const issued = await ctx.auth.issueKey(tokenRequest, request.ip);
    const answer: StoredResponse = {
      status: 201,
      headers: { 'Content-Type': TOKEN_CONTENT_TYPE, 'Cache-Control': 'no-store' },
      body: JSON.stringify(issued),
    };
    await idempotency.completeAlone(use, attempt, { ...answer, body: await seal(answer.body, password, context) });
    return answer;
  });
  if (!outcome.replayed) return sendAnswer(reply, outcome);
  const sealed = outcome.response.body;
  // Opening the seal checks the password: a failure counts against the login throttle like a wrong
  // password at /token, so replays cannot be used to guess one.
  const body = await ctx.auth.guardPasswordCheck(
    email,
    request.ip,
    async () => {
      const opened = await unseal(sealed, password, context);
      if (opened === undefined) {
        throw new ApiError('IDEMPOTENCY_KEY_REUSED', {
          detail:
            'This Idempotency-Key was used for another request (other credentials); use a new key for a new request',
          parameter: IDEMPOTENCY_KEY_HEADER,
        });
      }
      return opened;
    },
    (error) => error instanceof ApiError && error.code === 'IDEMPOTENCY_KEY_REUSED',
  );
  return sendAnswer(reply, { response: { ...outcome.response, body }, replayed: true });
}
