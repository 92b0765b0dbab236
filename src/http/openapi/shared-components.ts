// Components every resource shares: security schemes, response headers and the fixed parameters
// (paging, role switch, record id, stream options). Limits come from the query module and the config.
import type { SvcConfig } from '../../config/config-types.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../query/list-query.ts';
import { headerRef, type OpenApiObject } from './openapi-refs.ts';
import { conditionalHeaders, conditionalParameters } from './conditional-requests.ts';

export const BEARER_SCHEME = 'bearer';
export const QUERY_TOKEN_SCHEME = 'queryToken';
export const JWT_SCHEME = 'jwt';

/** Who may call /v1 and /me: a key holder, or (with auth.jwt) the holder of the identity provider's JWT. */
export function callerSecurity(config: SvcConfig): OpenApiObject[] {
  return config.auth.jwt ? [{ [BEARER_SCHEME]: [] }, { [JWT_SCHEME]: [] }] : [{ [BEARER_SCHEME]: [] }];
}
export const STREAM_EVENT_KINDS = ['created', 'updated', 'deleted'] as const;

export function securitySchemes(config: SvcConfig): OpenApiObject {
  const schemes: OpenApiObject = {
    [BEARER_SCHEME]: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'svc_<secret>',
      description:
        'An API key issued by `POST /token`, sent as `Authorization: Bearer svc_…`. The admin token is accepted too, ' +
        'but only for GET and DELETE on resource endpoints (403 `ADMIN_TOKEN_NOT_ALLOWED` otherwise).',
    },
  };
  if (config.auth.jwt) {
    schemes[JWT_SCHEME] = {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        `A JWT from the identity provider \`${config.auth.jwt.issuer}\` (audience \`${[config.auth.jwt.audience].flat().join('`, `')}\`), ` +
        `signed with a key of its JWKS (RS*, PS*, ES*, EdDSA). The \`${config.auth.jwt.roleClaim}\` claim names the role; ` +
        'an invalid, expired or foreign token is 401 `INVALID_TOKEN`, a role this service does not define 403 `FORBIDDEN`.',
    };
  }
  if (config.stream.allowQueryToken) {
    schemes[QUERY_TOKEN_SCHEME] = {
      type: 'apiKey',
      in: 'query',
      name: 'token',
      description: 'The API key as a query parameter, for stream clients (EventSource) that cannot set headers.',
    };
  }
  return schemes;
}

export function sharedHeaders(config: SvcConfig): OpenApiObject {
  const integer = () => ({ type: 'integer', minimum: 0 });
  const { max, timeWindow } = config.apiKeys.rateLimit;
  return {
    XRequestId: {
      description: "The request's id (the caller's own `X-Request-Id` when it sent one).",
      schema: { type: 'string' },
    },
    WwwAuthenticate: {
      description: 'The scheme to authenticate with.',
      schema: { type: 'string', examples: ['Bearer'] },
    },
    RetryAfter: { description: 'Seconds until the key may make requests again.', schema: integer() },
    RateLimitLimit: {
      description: `Requests the key may make per window (default ${max} per ${timeWindow} ms).`,
      schema: integer(),
    },
    RateLimitRemaining: { description: 'Requests left in the current window.', schema: integer() },
    RateLimitReset: { description: 'Seconds until the window resets.', schema: integer() },
    ...conditionalHeaders(),
  };
}

/** Headers of a successful keyed response (docs/authentication.md); the admin token gets no rate-limit headers. */
export function successHeaders(): OpenApiObject {
  return {
    'X-Request-Id': headerRef('XRequestId'),
    'RateLimit-Limit': headerRef('RateLimitLimit'),
    'RateLimit-Remaining': headerRef('RateLimitRemaining'),
    'RateLimit-Reset': headerRef('RateLimitReset'),
  };
}

export function sharedParameters(config: SvcConfig): OpenApiObject {
  // Functions, not shared objects: the document stays a tree, so YAML output needs no anchors.
  const limit = () => ({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT });
  const offset = () => ({ type: 'integer', minimum: 0, default: 0 });
  // The synonyms carry no default: tools that fill in defaults (an API reference's "try it") would
  // otherwise send both spellings, which the API refuses.
  const { default: _limitDefault, ...pageLimit } = limit();
  const { default: _offsetDefault, ...pageOffset } = offset();
  const parameters: OpenApiObject = {
    Limit: { name: '_limit', in: 'query', description: 'Records per page.', schema: limit() },
    Offset: { name: '_offset', in: 'query', description: 'Records to skip.', schema: offset() },
    PageLimit: {
      name: 'page[limit]',
      in: 'query',
      description: 'Synonym of `_limit`, as used in pagination links; give only one of the two.',
      schema: pageLimit,
    },
    PageOffset: {
      name: 'page[offset]',
      in: 'query',
      description: 'Synonym of `_offset`, as used in pagination links; give only one of the two.',
      schema: pageOffset,
    },
    PageSize: {
      name: 'page[size]',
      in: 'query',
      description:
        "JSON:API's page-based synonym of `_limit`; give only one of `_limit`, `page[limit]` and `page[size]`.",
      schema: { ...pageLimit },
    },
    PageNumber: {
      name: 'page[number]',
      in: 'query',
      description:
        'The page to return, from 1, of `page[size]` records (pages of the default size without it); not with an offset. ' +
        'Links then use `page[number]` and `page[size]` too.',
      schema: { type: 'integer', minimum: 1 },
    },
    PageAfter: {
      name: 'page[after]',
      in: 'query',
      description:
        'Keyset page: the records right after this cursor, taken from `links.next` (empty: the first page). ' +
        'Not with an offset; a cursor made for another `_sort`: 400 `INVALID_QUERY_PARAMS`.',
      schema: { type: 'string', pattern: '^[A-Za-z0-9_-]*$' },
    },
    PageBefore: {
      name: 'page[before]',
      in: 'query',
      description: 'Keyset page: the records right before this cursor, taken from `links.prev` (empty: the last page).',
      schema: { type: 'string', pattern: '^[A-Za-z0-9_-]*$' },
    },
    ServiceRole: {
      name: 'X-Service-Role',
      in: 'header',
      description: "Act as this role instead of the user's primary role; it must be one of the user's allowed roles.",
      schema: { type: 'string' },
    },
    RecordId: {
      name: 'id',
      in: 'path',
      required: true,
      description: 'Record id.',
      schema: { type: 'string', format: 'uuid' },
    },
    StreamEvents: {
      name: 'events',
      in: 'query',
      description: 'Event kinds to receive, comma-separated.',
      style: 'form',
      explode: false,
      schema: {
        type: 'array',
        uniqueItems: true,
        items: { type: 'string', enum: [...STREAM_EVENT_KINDS] },
        default: [...STREAM_EVENT_KINDS],
      },
    },
    LastEventIdHeader: {
      name: 'Last-Event-ID',
      in: 'header',
      description: `Resume after this event: missed events still in the replay window (${config.stream.replayWindow} per resource) are sent first, else \`event: reset\`.`,
      schema: { type: 'string', format: 'uuid' },
    },
    LastEventIdQuery: {
      name: 'lastEventId',
      in: 'query',
      description: 'Same as the `Last-Event-ID` header, for clients that cannot set it.',
      schema: { type: 'string', format: 'uuid' },
    },
    ...conditionalParameters(),
  };
  if (config.stream.allowQueryToken) {
    parameters.StreamToken = {
      name: 'token',
      in: 'query',
      description: 'The API key, for clients that cannot send `Authorization` (it is redacted from logs).',
      schema: { type: 'string' },
    };
  }
  return parameters;
}
