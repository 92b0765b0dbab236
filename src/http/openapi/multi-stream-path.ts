// `GET /v1/stream?resources=a,b`: several resources' events on one connection (docs/streams.md).
import type { SvcConfig } from '../../config/config-types.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import { MAX_STREAM_RESOURCES } from '../../stream/multi-stream-query.ts';
import { errorResponses, KEY_AUTH_CODES, RATE_LIMIT_CODES } from './error-responses.ts';
import { parameterRef, type OpenApiObject } from './openapi-refs.ts';
import { callerSecurity, QUERY_TOKEN_SCHEME } from './shared-components.ts';

export const MULTI_STREAM_OPERATIONS = ['streamResources'] as const;
export const MULTI_STREAM_TAG = 'streams';

const CODES: readonly ErrorCode[] = [
  ...KEY_AUTH_CODES,
  ...RATE_LIMIT_CODES,
  'INVALID_QUERY_PARAMS',
  'FORBIDDEN',
  'KEY_PERMISSION_DENIED',
  'RESOURCE_NOT_FOUND',
  'RESOURCE_DISABLED',
  'METHOD_NOT_ALLOWED',
  'INTERNAL_ERROR',
];

/** A parameter per listed resource, written `name[resource]=`: one query parameter object in OpenAPI terms. */
function perResource(name: string, description: string, resourceNames: readonly string[]): OpenApiObject {
  return {
    name,
    in: 'query',
    style: 'deepObject',
    explode: true,
    description,
    schema: {
      type: 'object',
      properties: Object.fromEntries(resourceNames.map((resource) => [resource, { type: 'string' }])),
      additionalProperties: false,
    },
  };
}

export function multiStreamPaths(config: SvcConfig, resourceNames: readonly string[]): Record<string, OpenApiObject> {
  const parameters: OpenApiObject[] = [
    {
      name: 'resources',
      in: 'query',
      required: true,
      style: 'form',
      explode: false,
      description: `The resources to stream, comma-separated, at most ${MAX_STREAM_RESOURCES}. Each must be readable by the caller; one that is not is refused as its own stream would refuse it.`,
      schema: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_STREAM_RESOURCES,
        uniqueItems: true,
        items: resourceNames.length > 0 ? { type: 'string', enum: [...resourceNames] } : { type: 'string' },
      },
    },
    parameterRef('StreamEvents'),
    perResource(
      'fields',
      "`fields[posts]=title,status`: the fields to include in that resource's events, comma-separated; intersected with the fields the caller may read.",
      resourceNames,
    ),
    perResource(
      '_filter',
      "`_filter[posts]=<JSON>`: that resource's filter, in the grammar of the list's `_filter`, applied with the before/after rule.",
      resourceNames,
    ),
    parameterRef('LastEventIdHeader'),
    parameterRef('LastEventIdQuery'),
  ];
  if (config.stream.allowQueryToken) parameters.push(parameterRef('StreamToken'));
  const security = callerSecurity(config);
  return {
    '/v1/stream': {
      parameters: [parameterRef('ServiceRole')],
      get: {
        tags: [MULTI_STREAM_TAG],
        operationId: 'streamResources',
        summary: 'Stream the events of several resources on one connection',
        description:
          'Server-Sent Events of every listed resource, each as its own stream would send them (the same event names, ' +
          "ids and data, reduced to the caller's readable fields and filtered by its read filter and `_filter[name]`), " +
          'in the order they were committed. One `Last-Event-ID` resumes them all; an id that is not an event of a listed ' +
          'resource, or older than the replay window of any of them, answers `event: reset`. The connection counts once ' +
          'against `stream.maxPerKey`.',
        security: config.stream.allowQueryToken ? [...security, { [QUERY_TOKEN_SCHEME]: [] }] : security,
        parameters,
        responses: {
          '200': {
            description: 'An open event stream.',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          ...errorResponses(CODES),
        },
      },
    },
  };
}
