// The identity component's failures as the rest of the API answers them: always a code.
// - A URL it would put in a header that cannot be one never reaches it: http/ refuses it first
//   (http/guards/unheaderable-urls.ts).
// - Anything it throws that is not one of its own errors becomes 400 BAD_REQUEST: such as the TypeError
//   a header value above U+00FF raises, which would otherwise be an empty 500 and a multi-line stack on
//   standard error. An unreachable database is left to the error handler (503).
// - Its own errors that carry only a message (some input checks do) get the status's name as their code.
import { STATUS_CODES } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../../errors/api-error.ts';
import type { IdentityHandler } from './throttled-sign-in.ts';

/** Its error bodies are small; a larger one is passed on as it is. */
const MAX_CODED_BODY_BYTES = 64 * 1024;

/** `Unprocessable Entity` → `UNPROCESSABLE_ENTITY`, better-auth's own way of naming statuses. */
function statusCode(status: number): string {
  return (STATUS_CODES[status] ?? 'ERROR')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
}

async function withCode(response: Response): Promise<Response> {
  if (response.status < 400 || !(response.headers.get('content-type') ?? '').includes('json')) return response;
  const length = Number(response.headers.get('content-length') ?? '0');
  if (length > MAX_CODED_BODY_BYTES) return response;
  const text = await response.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return response;
  }
  if (
    typeof body !== 'object' ||
    body === null ||
    Array.isArray(body) ||
    typeof (body as { code?: unknown }).code === 'string'
  )
    return response;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify({ ...body, code: statusCode(response.status) }), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

export function answerIdentityFailures(
  handler: IdentityHandler,
  isUnavailable: (error: unknown) => boolean,
  log: FastifyBaseLogger,
): IdentityHandler {
  return async (request) => {
    let response: Response;
    try {
      response = await handler(request);
    } catch (error) {
      if (error instanceof ApiError || isUnavailable(error)) throw error;
      // One JSON line with the cause, for the operator; the client learns only that its input was refused.
      log.warn(
        { err: error, path: new URL(request.url).pathname },
        'the identity component could not handle a request; answered 400',
      );
      throw new ApiError(
        'BAD_REQUEST',
        'The identity endpoint could not use this request (a value it cannot handle, such as a callbackURL with characters outside Latin-1)',
        { cause: error },
      );
    }
    return withCode(response);
  };
}
