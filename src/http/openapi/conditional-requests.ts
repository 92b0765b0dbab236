// The OpenAPI side of conditional requests (docs/records.md): the ETag header on reads and updates,
// If-None-Match and its 304 on reads, If-Match on updates and deletes (their 412 comes with the codes).
import { headerRef, parameterRef, type OpenApiObject } from './openapi-refs.ts';

export function conditionalHeaders(): OpenApiObject {
  return {
    ETag: {
      description:
        'Strong entity tag of this document as the caller is shown it: send it back in `If-None-Match` to get 304 while it is current, ' +
        'or in `If-Match` to update or delete the record only if it has not changed since.',
      schema: { type: 'string' },
    },
  };
}

export function conditionalParameters(): OpenApiObject {
  return {
    IfNoneMatch: {
      name: 'If-None-Match',
      in: 'header',
      description:
        'Entity tags the client holds (or `*`): when one is the current tag (weak comparison), the answer is 304 with no body.',
      schema: { type: 'string' },
    },
    IfMatch: {
      name: 'If-Match',
      in: 'header',
      description:
        'Make the change only if the record as the caller sees it still has one of these tags (strong comparison), or, with `*`, exists; ' +
        'else 412 `PRECONDITION_FAILED` and nothing changes.',
      schema: { type: 'string' },
    },
  };
}

export const ifNoneMatchParameter = (): OpenApiObject => parameterRef('IfNoneMatch');
export const ifMatchParameter = (): OpenApiObject => parameterRef('IfMatch');

/** `response` with the document's ETag among its headers. */
export function withEntityTag(response: OpenApiObject): OpenApiObject {
  return { ...response, headers: { ...(response.headers as OpenApiObject), ETag: headerRef('ETag') } };
}

export function notModifiedResponse(): OpenApiObject {
  return {
    description: 'Not modified: `If-None-Match` names the current tag; no body.',
    headers: { ETag: headerRef('ETag'), 'X-Request-Id': headerRef('XRequestId') },
  };
}
