// The JSON:API error document and the error responses of each operation. Statuses come from the
// error catalogue, so an operation lists the codes it can answer with and never a status by hand.
import { ERROR_CATALOGUE, type ErrorCode } from '../../errors/error-catalogue.ts';
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { headerRef, JSON_API_MEDIA_TYPE, schemaRef, type OpenApiObject } from './openapi-refs.ts';

export const ERROR_DOCUMENT_SCHEMA = 'ErrorDocument';

/** Codes of a failed API key check (docs/authentication.md), shared by every keyed operation. */
export const KEY_AUTH_CODES: readonly ErrorCode[] = [
  'UNAUTHORIZED',
  'INVALID_API_KEY',
  'API_KEY_DISABLED',
  'API_KEY_EXPIRED',
];
export const RATE_LIMIT_CODES: readonly ErrorCode[] = ['RATE_LIMITED', 'USAGE_EXCEEDED'];
/** Codes of a request whose body the server could not take (size, media type, JSON syntax). */
export const BODY_CODES: readonly ErrorCode[] = ['INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Not acceptable',
  409: 'Conflict',
  412: 'Precondition failed',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable content',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Service unavailable',
};

/** The reason phrase that starts an error response's description. */
export function statusReason(status: number): string {
  return REASONS[status] ?? 'Error';
}

const ALL_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

export function errorDocumentSchema(): JsonSchema {
  const statuses = [...new Set(ALL_CODES.map((code) => String(ERROR_CATALOGUE[code].status)))].sort();
  return {
    type: 'object',
    description: 'A JSON:API error document; one error object per problem.',
    required: ['errors'],
    properties: {
      errors: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['status', 'code', 'title', 'detail'],
          properties: {
            status: { type: 'string', enum: statuses, description: 'HTTP status, as a string' },
            code: { type: 'string', enum: ALL_CODES },
            title: { type: 'string' },
            detail: { type: 'string' },
            source: {
              type: 'object',
              properties: {
                pointer: {
                  type: 'string',
                  description: 'JSON Pointer to the offending member, e.g. `/data/attributes/title`',
                },
                parameter: { type: 'string', description: 'The offending query parameter' },
              },
            },
          },
        },
      },
    },
  };
}

/** `CODE` (title), … as an error response's description names them. */
export function listCodes(codes: readonly ErrorCode[]): string {
  return codes.map((code) => `\`${code}\` (${ERROR_CATALOGUE[code].title})`).join(', ');
}

function errorResponse(status: number, codes: readonly ErrorCode[]): OpenApiObject {
  const listed = listCodes(codes);
  const headers: OpenApiObject = { 'X-Request-Id': headerRef('XRequestId') };
  if (status === 401) headers['WWW-Authenticate'] = headerRef('WwwAuthenticate');
  if (status === 429) headers['Retry-After'] = headerRef('RetryAfter');
  return {
    description: `${statusReason(status)}: ${listed}.`,
    headers,
    content: { [JSON_API_MEDIA_TYPE]: { schema: schemaRef(ERROR_DOCUMENT_SCHEMA) } },
  };
}

/** Error responses keyed by status for the codes an operation can answer with. */
export function errorResponses(codes: readonly ErrorCode[]): Record<string, OpenApiObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, OpenApiObject> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    responses[String(status)] = errorResponse(status, byStatus.get(status) ?? []);
  }
  return responses;
}
