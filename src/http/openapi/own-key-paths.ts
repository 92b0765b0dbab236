// `DELETE /me/key`: a key holder revokes the key the request is made with (signing out of a client that
// asked `/token` for a short-lived key), without the admin token.
import { errorResponses, KEY_AUTH_CODES, RATE_LIMIT_CODES } from './error-responses.ts';
import { headerRef, type OpenApiObject } from './openapi-refs.ts';
import { AUTH_TAG } from './service-paths.ts';
import { BEARER_SCHEME } from './shared-components.ts';

export const OWN_KEY_OPERATIONS = ['revokeOwnKey'] as const;

export function ownKeyPaths(): Record<string, OpenApiObject> {
  return {
    '/me/key': {
      delete: {
        tags: [AUTH_TAG],
        operationId: 'revokeOwnKey',
        summary: 'Revoke the key making this request',
        description:
          'Deletes the API key that authenticates this request: it is refused from the next request on, on every node, and its open event streams end. ' +
          "The user's other keys are untouched. The admin token is not a key and answers 403 `ADMIN_TOKEN_NOT_ALLOWED`.",
        security: [{ [BEARER_SCHEME]: [] }],
        responses: {
          204: { description: 'The key is revoked.', headers: { 'X-Request-Id': headerRef('XRequestId') } },
          ...errorResponses([
            ...KEY_AUTH_CODES,
            'ADMIN_TOKEN_NOT_ALLOWED',
            ...RATE_LIMIT_CODES,
            'NOT_ACCEPTABLE',
            'INTERNAL_ERROR',
          ]),
        },
      },
    },
  };
}
