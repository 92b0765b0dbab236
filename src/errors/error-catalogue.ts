// Every error code the service can answer with, defined once: status and title.
// The spec's section 7 codes come first, then the ones svc adds (docs/http-api.md lists them all).

export const ERROR_CATALOGUE = {
  NO_RESOURCE_NAME: { status: 400, title: 'Resource name missing' },
  INVALID_JSON: { status: 400, title: 'Invalid JSON' },
  INVALID_FIELDS: { status: 400, title: 'Fields not allowed' },
  INVALID_QUERY_PARAMS: { status: 400, title: 'Invalid query parameters' },
  INVALID_RESOURCE_DATA: { status: 400, title: 'Validation failed' },
  RELATION_REFERENCE_ERROR: { status: 400, title: 'Referenced record not found' },
  RESOURCE_NOT_FOUND: { status: 404, title: 'Resource not found' },
  RESOURCE_DISABLED: { status: 404, title: 'Resource disabled' },
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  KEY_PERMISSION_DENIED: { status: 403, title: 'API key permission denied' },
  ADMIN_TOKEN_NOT_ALLOWED: { status: 403, title: 'Admin token not allowed' },
  RESOURCE_FETCH_ERROR: { status: 500, title: 'Failed to fetch records' },
  RESOURCE_STORE_ERROR: { status: 500, title: 'Failed to create record' },
  RESOURCE_UPDATE_ERROR: { status: 500, title: 'Failed to update record' },
  RESOURCE_DELETE_ERROR: { status: 500, title: 'Failed to delete record' },
  RESOURCE_FIND_ERROR: { status: 500, title: 'Failed to find record' },
  RESOURCE_SCHEMA_ERROR: { status: 500, title: 'Failed to retrieve schema' },

  UNAUTHORIZED: { status: 401, title: 'Unauthorized' },
  INVALID_API_KEY: { status: 401, title: 'Invalid API key' },
  API_KEY_DISABLED: { status: 401, title: 'API key disabled' },
  API_KEY_EXPIRED: { status: 401, title: 'API key expired' },
  INVALID_CREDENTIALS: { status: 401, title: 'Invalid credentials' },
  INVALID_TOKEN: { status: 401, title: 'Invalid token' },
  TWO_FACTOR_REQUIRED: { status: 403, title: 'Two-factor code required' },
  INVALID_TWO_FACTOR_CODE: { status: 401, title: 'Invalid two-factor code' },
  EMAIL_NOT_VERIFIED: { status: 403, title: 'Email not verified' },
  EMAIL_PASSWORD_DISABLED: { status: 403, title: 'Email and password sign-in disabled' },
  INVALID_PERMISSIONS: { status: 400, title: 'Invalid permissions' },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  USAGE_EXCEEDED: { status: 429, title: 'Usage exceeded' },
  CONFLICT: { status: 409, title: 'Conflict' },
  CLIENT_GENERATED_ID_FORBIDDEN: { status: 403, title: 'Client-generated id not allowed' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  RANGE_NOT_SATISFIABLE: { status: 416, title: 'Range not satisfiable' },
  NOT_ACCEPTABLE: { status: 406, title: 'Not acceptable' },
  PRECONDITION_FAILED: { status: 412, title: 'Precondition failed' },
  ROUTE_NOT_FOUND: { status: 404, title: 'Route not found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service unavailable' },
  // Idempotency-Key on POST (docs/records.md, "Idempotent creates").
  INVALID_IDEMPOTENCY_KEY: { status: 400, title: 'Invalid Idempotency-Key' },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, title: 'Idempotency-Key in use' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, title: 'Idempotency-Key reused' },
  // JSON:API Atomic Operations at POST /v1/operations (docs/atomic.md).
  INVALID_OPERATIONS: { status: 400, title: 'Invalid atomic operations' },
  TOO_MANY_OPERATIONS: { status: 413, title: 'Too many operations' },
  // Answered for Node's HTTP parser, before a request exists (src/http/server/client-errors.ts).
  BAD_REQUEST: { status: 400, title: 'Bad request' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request timeout' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request header fields too large' },
  INTERNAL_ERROR: { status: 500, title: 'Internal error' },
  // Hooks (docs/hooks.md): a hook's own refusal answers with the status and code it chose.
  HOOK_REFUSED: { status: 422, title: 'Refused' },
  HOOK_FAILED: { status: 500, title: 'Hook failed' },
  HOOK_TIMEOUT: { status: 503, title: 'Hook timed out' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
