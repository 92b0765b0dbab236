// JSON:API answers where Fastify would answer in its own format: errors of Node's HTTP parser (there is
// no request yet, so the answer is written to the socket), and requests that arrive while the app closes.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyInstance, FastifyServerOptions } from 'fastify';
import { ApiError } from '../../errors/api-error.ts';
import { errorDocument } from '../../errors/error-document.ts';
import { JSON_API_MEDIA_TYPE } from '../documents/json-api.ts';

/** Node's `clientError` also carries the parser's code and reason (`'Invalid method encountered'`). */
type ParserError = ConnectionError & { reason?: string };

/** The statuses Node itself gives these errors, as catalogue codes. */
function toApiError(error: ParserError): ApiError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('HEADERS_TOO_LARGE', 'The request line and headers are larger than the server accepts');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ApiError('PAYLOAD_TOO_LARGE', 'The chunk extensions are larger than the server accepts');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('REQUEST_TIMEOUT', 'The request was not received in time');
    default: {
      // llhttp's reasons are fixed texts ('Invalid character in chunk size'), never the request's bytes.
      const reason = typeof error.reason === 'string' && error.reason !== '' ? `: ${error.reason}` : '';
      return new ApiError('BAD_REQUEST', `The request is not valid HTTP/1.1${reason}`);
    }
  }
}

/** The raw HTTP/1.1 answer: the connection is closed after it, as the parser cannot resynchronise. */
export function clientErrorResponse(error: ApiError, requestId: string): string {
  const body = JSON.stringify(errorDocument(error));
  return [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}`,
    `Content-Type: ${JSON_API_MEDIA_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    `X-Request-Id: ${requestId}`,
    '',
    body,
  ].join('\r\n');
}

/** Fastify's `clientErrorHandler`, bound to the instance. */
function handleClientError(this: FastifyInstance, error: ParserError, socket: Socket): void {
  // A reset connection has no one to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const apiError = toApiError(error);
  const requestId = randomUUID();
  // Scanners and broken clients make these common: not worth more than debug.
  this.log.debug({ reqId: requestId, code: apiError.code, parserCode: error.code }, 'malformed request refused');
  // As Node does: answer only if no response has started on this connection (keep-alive), so a reply
  // already on the wire is never corrupted.
  const node = socket as Socket & {
    _httpMessage?: { headersSent?: boolean } | null;
    parser?: { incoming?: { complete?: boolean } | null } | null;
  };
  const inFlight = node._httpMessage;
  // A request answered before its body arrived (a 401 to a slow upload) has no response in flight any
  // more; a 408 written then would follow a complete answer as if to a request never sent.
  const answeredEarly = !inFlight && node.parser?.incoming?.complete === false;
  if (socket.writable && inFlight?.headersSent !== true && !answeredEarly)
    socket.write(clientErrorResponse(apiError, requestId));
  socket.destroy(error);
}

/**
 * Fastify options: parser errors answered as JSON:API, and Fastify's own 503 while closing turned off
 * (installErrorHandling answers those requests instead).
 */
export function clientErrorOptions(): Pick<FastifyServerOptions, 'clientErrorHandler' | 'return503OnClosing'> {
  return { clientErrorHandler: handleClientError, return503OnClosing: false };
}
