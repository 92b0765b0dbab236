// `POST /v1/operations`: JSON:API Atomic Operations (docs/atomic.md): the request and result
// documents, the extension's media type, and the errors a batch can answer with.
import type { SvcConfig } from '../../config/config-types.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import { SERVER_LIMIT_DEFAULTS } from '../../config/config-schema.ts';
import { ATOMIC_OPERATIONS_ENVELOPE_NAME, atomicOperationsSchema } from '../bodies/atomic-operations-body.ts';
import { IDEMPOTENCY_DEFAULTS } from '../../config/idempotency-settings.ts';
import { BODY_CODES, errorResponses, KEY_AUTH_CODES, RATE_LIMIT_CODES } from './error-responses.ts';
import { schemaRef, type OpenApiObject } from './openapi-refs.ts';
import { callerSecurity, successHeaders } from './shared-components.ts';
import { IDEMPOTENCY_CODES, idempotencyKeyParameter, withReplayedHeader } from './idempotency-openapi.ts';

export const OPERATIONS_OPERATIONS = ['runAtomicOperations'] as const;
export const OPERATIONS_SCHEMAS = [
  'AtomicOperationsDocument',
  ATOMIC_OPERATIONS_ENVELOPE_NAME,
  'AtomicResultsDocument',
] as const;
export const OPERATIONS_TAG = 'operations';

const ATOMIC_MEDIA_TYPE = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

const CODES: readonly ErrorCode[] = [
  ...KEY_AUTH_CODES,
  ...RATE_LIMIT_CODES,
  ...BODY_CODES,
  'NOT_ACCEPTABLE',
  'INVALID_OPERATIONS',
  'TOO_MANY_OPERATIONS',
  'INVALID_RESOURCE_DATA',
  'INVALID_FIELDS',
  'RELATION_REFERENCE_ERROR',
  'CONFLICT',
  'CLIENT_GENERATED_ID_FORBIDDEN',
  'FORBIDDEN',
  'KEY_PERMISSION_DENIED',
  'ADMIN_TOKEN_NOT_ALLOWED',
  'RESOURCE_NOT_FOUND',
  'RESOURCE_DISABLED',
  ...IDEMPOTENCY_CODES,
  'RESOURCE_STORE_ERROR',
  'INTERNAL_ERROR',
];

/** The request document's envelope is the schema its reader checks it with (bodies/atomic-operations-body.ts). */
export function operationsSchemas(config: SvcConfig, resourceNames: readonly string[]): Record<string, unknown> {
  const type = () => (resourceNames.length > 0 ? { type: 'string', enum: [...resourceNames] } : { type: 'string' });
  return {
    [ATOMIC_OPERATIONS_ENVELOPE_NAME]: atomicOperationsSchema(maxOperations(config)),
    // The envelope, and the resources an operation's data and ref may name (an unknown one is a 404
    // when its operation runs, so the envelope leaves it open).
    AtomicOperationsDocument: {
      allOf: [schemaRef(ATOMIC_OPERATIONS_ENVELOPE_NAME)],
      properties: {
        'atomic:operations': {
          items: { properties: { ref: { properties: { type: type() } }, data: { properties: { type: type() } } } },
        },
      },
    },
    AtomicResultsDocument: {
      type: 'object',
      required: ['atomic:results'],
      properties: {
        'atomic:results': {
          type: 'array',
          description:
            'One result per operation, in order: `{data}` with the record for an add or update, `{}` for a remove.',
          items: { type: 'object', properties: { data: { type: 'object' } } },
        },
      },
    },
  };
}

const maxOperations = (config: SvcConfig): number =>
  config.server.atomicMaxOperations ?? SERVER_LIMIT_DEFAULTS.atomicMaxOperations;

export function operationsPaths(config: SvcConfig): Record<string, OpenApiObject> {
  const max = maxOperations(config);
  return {
    '/v1/operations': {
      post: {
        tags: [OPERATIONS_TAG],
        operationId: 'runAtomicOperations',
        summary: 'Run several writes as one (JSON:API Atomic Operations)',
        description:
          `Up to ${max} operations (\`server.atomicMaxOperations\`), each an add, update or remove of any resource, run in order in one ` +
          'transaction with the permissions, validation and events of the single requests: all of them are stored, or none is. An error ' +
          "names the failing operation in `source.pointer` (`/atomic:operations/<n>/…`). Each operation counts once against the key's rate limit.",
        security: callerSecurity(config),
        parameters: [idempotencyKeyParameter((config.idempotency ?? IDEMPOTENCY_DEFAULTS).ttlMs)],
        requestBody: {
          required: true,
          content: { [ATOMIC_MEDIA_TYPE]: { schema: schemaRef('AtomicOperationsDocument') } },
        },
        responses: {
          '200': withReplayedHeader({
            description: 'Every operation succeeded: their results, in order.',
            headers: successHeaders(),
            content: { [ATOMIC_MEDIA_TYPE]: { schema: schemaRef('AtomicResultsDocument') } },
          }),
          '204': { description: 'Every operation succeeded and none has a result with data (only removes).' },
          ...errorResponses(CODES),
        },
      },
    },
  };
}
