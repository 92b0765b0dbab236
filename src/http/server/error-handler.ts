// Turns every failure into a JSON:API error document. The cause is logged, never sent.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/api-error.ts';
import { errorDocument } from '../../errors/error-document.ts';
import { refusalAsApiError } from '../../errors/refusal.ts';
import { RecordFailure } from '../../records/record-failure.ts';
import { asJsonApi } from '../documents/json-api.ts';
import { domainErrorAnswer } from './domain-error-answer.ts';

/**
 * A route schema's refusal (a custom route's `schema`, docs/hooks.md): each problem with where it is,
 * a pointer into the body or the parameter's name.
 */
function fromValidation(error: FastifyError): ApiError | undefined {
  const problems = error.validation;
  if (!Array.isArray(problems) || problems.length === 0) return undefined;
  const where = error.validationContext;
  const issues = problems.slice(0, 20).map((problem) => {
    const path = typeof problem.instancePath === 'string' ? problem.instancePath : '';
    const missing = (problem.params as { missingProperty?: unknown } | undefined)?.missingProperty;
    const member = typeof missing === 'string' ? `${path}/${missing}` : path;
    const detail = `${member === '' ? (where ?? 'request') : member.slice(1).replaceAll('/', '.')} ${problem.message ?? 'is not valid'}`;
    if (where === 'body') return { detail, pointer: member === '' ? '/' : member };
    return { detail, parameter: member.replace(/^\//, '').split('/')[0] || String(where) };
  });
  if (where === 'body') return new ApiError('INVALID_RESOURCE_DATA', issues);
  return new ApiError('INVALID_QUERY_PARAMS', issues);
}

/** Fastify's own errors (body parsing, limits, content type, route schemas) mapped to our codes. */
function fromFastifyError(error: FastifyError): ApiError | undefined {
  const invalid = fromValidation(error);
  if (invalid) return invalid;
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', 'Request body is larger than the configured limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json or application/vnd.api+json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('INVALID_JSON', 'Request body is not valid JSON');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('INVALID_JSON', 'Request body length does not match Content-Length');
    default:
      break;
  }
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
    return new ApiError('INVALID_JSON', 'Request body is not valid JSON');
  }
  return undefined;
}

export function toApiError(error: unknown): ApiError {
  const answered = domainErrorAnswer(error);
  if (answered instanceof ApiError) return answered;
  // A custom route's refusal (docs/hooks.md).
  const refused = refusalAsApiError(error);
  if (refused) return refused;
  const mapped = fromFastifyError(error as FastifyError);
  if (mapped) return mapped;
  return new ApiError('INTERNAL_ERROR', 'An unexpected error occurred', { cause: error });
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return asJsonApi(reply).code(error.status).send(errorDocument(error));
}

/**
 * Fastify's `frameworkErrors`: failures before routing, which skip every hook and would otherwise answer
 * Fastify's own JSON. A path that does not decode, or whose segment is longer than any name or id can
 * be, names no route.
 */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Request-Id', request.id);
  const path = request.url.split('?')[0];
  let apiError: ApiError;
  if (error.code === 'FST_ERR_BAD_URL') {
    apiError = new ApiError(
      'ROUTE_NOT_FOUND',
      `No route for ${request.method} ${path}: the path is not valid percent-encoded UTF-8`,
    );
  } else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    apiError = new ApiError('ROUTE_NOT_FOUND', `No route for ${request.method} ${path}: a path segment is too long`);
  } else {
    apiError = toApiError(error);
    request.log.error({ err: error, code: apiError.code }, 'request failed before routing');
  }
  sendError(reply, apiError);
}

/** Seconds a client is told to wait when this node is closing: a balancer can send the retry elsewhere at once. */
export const CLOSING_RETRY_AFTER_SECONDS = 1;

/**
 * From the start of shutdown, every new request is answered 503 SERVICE_UNAVAILABLE and its connection
 * closed, as Fastify's `return503OnClosing` would (turned off in clientErrorOptions), but as a JSON:API
 * document with the request id. Installed before the app's other `preClose` hooks, which may take a
 * while (draining the workers).
 */
function answerClosingRequests(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    const headers = { 'Retry-After': String(CLOSING_RETRY_AFTER_SECONDS), Connection: 'close' };
    sendError(
      reply,
      new ApiError('SERVICE_UNAVAILABLE', 'The server is shutting down; retry the request', { headers }),
    );
  });
}

export interface ErrorHandlingOptions {
  /** The database cannot be reached: answer 503 SERVICE_UNAVAILABLE wherever the error came from (auth, admin). */
  isUnavailable?: (error: unknown) => boolean;
}

export function installErrorHandling(app: FastifyInstance, options: ErrorHandlingOptions = {}): void {
  answerClosingRequests(app);
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const apiError =
      !(error instanceof ApiError) && !(error instanceof RecordFailure) && options.isUnavailable?.(error)
        ? new ApiError('SERVICE_UNAVAILABLE', 'The database is unavailable', { cause: error })
        : toApiError(error);
    if (apiError.status >= 500)
      request.log.error({ err: apiError.cause ?? error, code: apiError.code }, 'request failed');
    else request.log.debug({ code: apiError.code }, 'request rejected');
    return sendError(reply, apiError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new ApiError('ROUTE_NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}`)),
  );
}
