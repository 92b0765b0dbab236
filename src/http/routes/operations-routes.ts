// POST /v1/operations: JSON:API Atomic Operations (docs/atomic.md). Every operation of a request runs
// through the record service's own write path inside one transaction: all of them commit with their
// events, in order, or none does.
import type { FastifyInstance, FastifyReply, FastifyRequest, RequestPayload } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { ApiError } from '../../errors/api-error.ts';
import { SERVER_LIMIT_DEFAULTS } from '../../config/config-schema.ts';
import { authenticateHook, principalOf } from '../guards/authenticate-hook.ts';
import { requestMeta } from './request-meta.ts';
import { idempotencyKeyOf } from '../../idempotency/idempotency-key-header.ts';
import { requestFingerprint } from '../../idempotency/request-fingerprint.ts';
import type { StoredResponse } from '../../idempotency/stored-response.ts';
import { rateLimitHeaders } from '../../auth/rate-limit/key-rate-limit.ts';
import { sendAnswer } from '../idempotency/idempotent-answer.ts';
import { callerOf } from '../idempotency/idempotent-create.ts';
import { refusingRoute } from '../guards/refusing-route.ts';
import { acceptsAtomicAnswer, ATOMIC_MEDIA_TYPE, atomicContentTypeProblem } from '../atomic/atomic-media-type.ts';
import { parseOperations } from '../atomic/parse-operations.ts';
import { AtomicOperationsBody, RESULTS_MEMBER } from '../bodies/atomic-operations-body.ts';
import { runOperations, type OperationResult } from '../atomic/run-operations.ts';
import { fileUrlHook } from '../files/file-urls.ts';

export const OPERATIONS_PATH = '/v1/operations';

type Deps = Pick<AppContext, 'auth' | 'config' | 'registry' | 'records' | 'idempotency' | 'files'>;
type PreParsingDone = (error?: Error | null, payload?: RequestPayload) => void;

/** Media types first, as JSON:API 1.1 orders them: an unsupported extension is 415, an Accept nothing answers is 406. */
function negotiate(request: FastifyRequest, _reply: FastifyReply, payload: RequestPayload, done: PreParsingDone): void {
  const problem = atomicContentTypeProblem(request.headers['content-type']);
  if (problem !== undefined) return done(new ApiError('UNSUPPORTED_MEDIA_TYPE', problem));
  if (!acceptsAtomicAnswer(request.headers.accept)) {
    return done(
      new ApiError(
        'NOT_ACCEPTABLE',
        `Answers are ${ATOMIC_MEDIA_TYPE}; accept it, or the JSON:API type without parameters`,
      ),
    );
  }
  done(null, payload);
}

/** The answer: 200 with the results in order, or 204 when none has data (only removes). */
function answerOf(results: OperationResult[]): StoredResponse {
  if (results.every((result) => !('data' in result))) return { status: 204, headers: {}, body: '' };
  return {
    status: 200,
    headers: { 'Content-Type': ATOMIC_MEDIA_TYPE },
    body: JSON.stringify({ [RESULTS_MEMBER]: results }),
  };
}

function send(reply: FastifyReply, answer: StoredResponse, replayed: boolean): string {
  return sendAnswer(reply, { response: answer, replayed });
}

export async function registerOperationsRoutes(app: FastifyInstance, ctx: Deps): Promise<void> {
  const { registry, records } = ctx;
  const operationsBody = new AtomicOperationsBody(
    ctx.config.server.atomicMaxOperations ?? SERVER_LIMIT_DEFAULTS.atomicMaxOperations,
  );
  await app.register(
    async (routes) => {
      routes.addHook('onRequest', authenticateHook(ctx));
      // Results carry file fields' download `url` as single-record documents do (signed when sent, so a
      // replayed answer's links are fresh too).
      routes.addHook('onSend', fileUrlHook(ctx));
      routes.post(
        '/operations',
        { preParsing: negotiate, config: { atomic: true, requestBody: operationsBody } },
        async (request, reply) => {
          const meta = requestMeta(request);
          const operations = parseOperations(request.body, operationsBody);
          // The request itself was counted when it was let in; each further operation counts as one more.
          const window = await ctx.auth.chargeMore(meta.principal, operations.length - 1);
          if (window) for (const [name, value] of Object.entries(rateLimitHeaders(window))) reply.header(name, value);
          const idempotencyKey = idempotencyKeyOf(request.headers);
          if (idempotencyKey === undefined) {
            const results = await records.batch((batch) => runOperations(batch, registry, meta, operations));
            return send(reply, answerOf(results), false);
          }
          const principal = principalOf(request);
          const role = principal.kind === 'admin' ? 'admin' : principal.role;
          const use = {
            caller: callerOf(principal),
            key: idempotencyKey,
            fingerprint: requestFingerprint(['POST', OPERATIONS_PATH, role, request.body ?? null]),
          };
          // Claimed in the batch's transaction, as a create's key is: a batch that dies with its node
          // leaves nothing behind that would hold a retry back.
          const outcome = await ctx.idempotency.runInWrite(use, async ({ first, complete }) => {
            const results = await records.batch(
              (batch) => runOperations(batch, registry, meta, operations),
              (trx, written) => complete(trx, answerOf(written)),
              first,
            );
            return answerOf(results);
          });
          return send(reply, outcome.response, outcome.replayed);
        },
      );
      routes.route({
        method: ['GET', 'PUT', 'PATCH', 'DELETE'],
        url: '/operations',
        ...refusingRoute(
          (request) =>
            new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use POST`, {
              headers: { Allow: 'POST' },
            }),
        ),
      });
    },
    { prefix: '/v1' },
  );
}
