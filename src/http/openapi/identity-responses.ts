// Responses of the identity endpoints. Their answers and most of their errors are the identity component's
// plain JSON (`{ code, message }`), while svc's own checks in front of it (body parsing, the login throttle)
// answer with JSON:API error documents: each error response names which codes come in which form.
import { ERROR_CATALOGUE, type ErrorCode } from '../../errors/error-catalogue.ts';
import { BODY_CODES, ERROR_DOCUMENT_SCHEMA, listCodes, statusReason } from './error-responses.ts';
import { headerRef, JSON_API_MEDIA_TYPE, JSON_MEDIA_TYPE, schemaRef, type OpenApiObject } from './openapi-refs.ts';

const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/** A body svc could not take: size, media type, JSON syntax, or a form field it cannot store. */
export const FORM_BODY_CODES: readonly ErrorCode[] = [...BODY_CODES, 'INVALID_RESOURCE_DATA'];

/** The errors of one identity operation: better-auth's codes by status, and svc's own codes. */
export interface Failures {
  identity: Readonly<Record<number, readonly string[]>>;
  service: readonly ErrorCode[];
}

const ticked = (codes: readonly string[]): string => codes.map((code) => `\`${code}\``).join(', ');

export function failureResponses({ identity, service }: Failures): Record<string, OpenApiObject> {
  const serviceByStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(service)) {
    const status = ERROR_CATALOGUE[code].status;
    serviceByStatus.set(status, [...(serviceByStatus.get(status) ?? []), code]);
  }
  const statuses = [...new Set([...Object.keys(identity).map(Number), ...serviceByStatus.keys()])].sort(
    (a, b) => a - b,
  );
  const responses: Record<string, OpenApiObject> = {};
  for (const status of statuses) {
    const own = identity[status];
    const svc = serviceByStatus.get(status);
    const parts: string[] = [];
    const content: OpenApiObject = {};
    const headers: OpenApiObject = { 'X-Request-Id': headerRef('XRequestId') };
    if (svc) {
      parts.push(`${listCodes(svc)} as a JSON:API error document`);
      content[JSON_API_MEDIA_TYPE] = { schema: schemaRef(ERROR_DOCUMENT_SCHEMA) };
      if (status === 429) headers['Retry-After'] = headerRef('RetryAfter');
    }
    if (own) {
      parts.push(
        own.length > 0
          ? `${ticked(own)} from the identity component (\`{ code, message }\`)`
          : 'the identity component',
      );
      content[JSON_MEDIA_TYPE] = { schema: schemaRef('IdentityError') };
      if (status === 429)
        headers['X-Retry-After'] = {
          description: 'Seconds until the identity component takes requests again.',
          schema: { type: 'integer', minimum: 0 },
        };
    }
    responses[String(status)] = { description: `${statusReason(status)}: ${parts.join('; ')}.`, headers, content };
  }
  return responses;
}

export function jsonAnswer(description: string, schema: string, extraHeaders: OpenApiObject = {}): OpenApiObject {
  return {
    description,
    headers: { 'X-Request-Id': headerRef('XRequestId'), ...extraHeaders },
    content: { [JSON_MEDIA_TYPE]: { schema: schemaRef(schema) } },
  };
}

export function identityBody(schema: string, description: string): OpenApiObject {
  return {
    description,
    required: true,
    content: { [JSON_MEDIA_TYPE]: { schema: schemaRef(schema) }, [FORM_MEDIA_TYPE]: { schema: schemaRef(schema) } },
  };
}

export const sessionCookieHeader = (what: string): OpenApiObject => ({
  'Set-Cookie': { description: what, schema: { type: 'string' } },
});
export const redirect = (description: string, extraHeaders: OpenApiObject = {}): OpenApiObject => ({
  description,
  headers: {
    'X-Request-Id': headerRef('XRequestId'),
    Location: { description: 'Where the browser goes next.', schema: { type: 'string' } },
    ...extraHeaders,
  },
});
