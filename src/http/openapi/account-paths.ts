// The identity component's account endpoints (docs/authentication.md): password reset, password and
// email change, account deletion, and the user's own sessions. They are better-auth's endpoints,
// mounted under `auth.basePath`; svc puts the login throttle and `auth.emailAndPassword.enabled` in
// front of them (auth/identity/guarded-account-routes.ts).
import { LOGIN_THROTTLE_DEFAULTS, PASSWORD_RESET_DEFAULTS } from '../../config/config-schema.ts';
import type { SvcConfig } from '../../config/config-types.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { IDENTITY_TAG, SESSION_COOKIE_SCHEME, SESSION_TOKEN_SCHEME } from './identity-paths.ts';
import {
  FORM_BODY_CODES,
  failureResponses,
  identityBody,
  jsonAnswer,
  redirect,
  sessionCookieHeader,
} from './identity-responses.ts';
import { schemaRef, type OpenApiObject } from './openapi-refs.ts';

export const ACCOUNT_SCHEMAS = [
  'RequestPasswordResetBody',
  'ResetPasswordBody',
  'AccountStatusResult',
  'ChangePasswordBody',
  'ChangePasswordResult',
  'ChangeEmailBody',
  'DeleteUserBody',
  'DeleteUserResult',
  'RevokeSessionBody',
  'SessionList',
] as const;

export const ACCOUNT_OPERATIONS = [
  'requestPasswordReset',
  'resetPasswordCallback',
  'resetPassword',
  'changePassword',
  'changeEmail',
  'deleteUser',
  'deleteUserCallback',
  'listSessions',
  'revokeSession',
  'revokeSessions',
  'revokeOtherSessions',
] as const;

const PASSWORD_MIN_LENGTH = 8;
const PASSWORD_MAX_LENGTH = 128;

export function accountSchemas(): Record<(typeof ACCOUNT_SCHEMAS)[number], JsonSchema> {
  const password = (description: string): JsonSchema => ({
    type: 'string',
    minLength: PASSWORD_MIN_LENGTH,
    maxLength: PASSWORD_MAX_LENGTH,
    writeOnly: true,
    description,
  });
  const callback = (what: string): JsonSchema => ({
    type: 'string',
    description: `Where to send the browser ${what}: a relative path or a URL on a trusted origin (otherwise 403 \`INVALID_CALLBACK_URL\`).`,
  });
  return {
    RequestPasswordResetBody: {
      type: 'object',
      required: ['email'],
      properties: {
        email: { type: 'string', format: 'email', examples: ['ada@example.com'] },
        redirectTo: callback("when the link is opened; `?token=` is added (default: the console's reset page)"),
      },
    },
    ResetPasswordBody: {
      type: 'object',
      required: ['newPassword', 'token'],
      properties: {
        token: { type: 'string', description: 'The token the reset link carried' },
        newPassword: password('The new password'),
      },
    },
    AccountStatusResult: {
      type: 'object',
      required: ['status'],
      properties: { status: { type: 'boolean' }, message: { type: 'string' } },
    },
    ChangePasswordBody: {
      type: 'object',
      required: ['currentPassword', 'newPassword'],
      properties: {
        currentPassword: password('The password now'),
        newPassword: password('The new password'),
        revokeOtherSessions: { type: 'boolean', default: false, description: 'End every other session of the user' },
      },
    },
    ChangePasswordResult: {
      type: 'object',
      required: ['token', 'user'],
      properties: {
        token: { type: ['string', 'null'], description: 'The new session token when other sessions were revoked' },
        user: schemaRef('IdentityUser'),
      },
    },
    ChangeEmailBody: {
      type: 'object',
      required: ['newEmail'],
      properties: {
        newEmail: { type: 'string', format: 'email' },
        callbackURL: callback('after the confirmation link is followed'),
      },
    },
    DeleteUserBody: {
      type: 'object',
      properties: {
        password: {
          type: 'string',
          writeOnly: true,
          description:
            'The current password: the account is deleted at once. Without it a confirmation link is mailed.',
        },
        token: { type: 'string', description: 'The token of a mailed confirmation link' },
        callbackURL: callback('after the mailed link deleted the account'),
      },
    },
    DeleteUserResult: {
      type: 'object',
      required: ['success', 'message'],
      properties: {
        success: { type: 'boolean' },
        message: { type: 'string', enum: ['User deleted', 'Verification email sent'] },
      },
    },
    RevokeSessionBody: {
      type: 'object',
      required: ['token'],
      properties: { token: { type: 'string', description: "The `token` of one of the user's sessions, as listed" } },
    },
    SessionList: { type: 'array', items: schemaRef('IdentitySession') },
  };
}

export function accountPaths(config: SvcConfig): Record<string, OpenApiObject> {
  const base = config.auth.basePath.replace(/\/+$/, '');
  const throttled = (config.auth.loginThrottle ?? LOGIN_THROTTLE_DEFAULTS).enabled;
  const passwords = config.auth.emailAndPassword?.enabled ?? true;
  const expiresIn = (config.auth.passwordReset ?? PASSWORD_RESET_DEFAULTS).expiresIn;
  const revokeKeys = (config.auth.passwordReset ?? PASSWORD_RESET_DEFAULTS).revokeKeys;
  const limited: Record<number, readonly string[]> = { 429: [] };
  const origins = ['MISSING_OR_NULL_ORIGIN', 'INVALID_ORIGIN', 'INVALID_CALLBACK_URL', 'INVALID_REDIRECT_URL'];
  // A function: each operation gets its own array (the document must be a plain tree, no shared nodes).
  const signedIn = (): OpenApiObject[] => [{ [SESSION_COOKIE_SCHEME]: [] }, { [SESSION_TOKEN_SCHEME]: [] }];
  const operation = (fields: OpenApiObject): OpenApiObject => ({ tags: [IDENTITY_TAG], security: [], ...fields });
  const service = (...extra: ErrorCode[]): ErrorCode[] => [
    ...FORM_BODY_CODES,
    'INTERNAL_ERROR',
    ...(throttled ? (['RATE_LIMITED'] as const) : []),
    ...extra,
  ];
  const passwordOnly: ErrorCode[] = passwords ? [] : ['EMAIL_PASSWORD_DISABLED'];
  const failures = (identity: Record<number, readonly string[]>, codes: ErrorCode[]) =>
    failureResponses({ identity: { ...limited, 500: [], ...identity }, service: codes });
  const throttleNote = (what: string): string =>
    throttled ? ` ${what} go through the login throttle (\`auth.loginThrottle\`).` : '';

  return {
    [`${base}/request-password-reset`]: {
      post: operation({
        operationId: 'requestPasswordReset',
        summary: 'Mail a password reset link',
        description:
          `Mails a single-use link, valid for ${expiresIn} s, through \`auth.email.smtpUrl\` (logged when none is set). The answer is the same whether or not the ` +
          'address has an account.' +
          throttleNote('Requests per email and per client address'),
        requestBody: identityBody('RequestPasswordResetBody', 'The address, and where the link should land.'),
        responses: {
          '200': jsonAnswer('Done, if the address has an account.', 'AccountStatusResult'),
          ...failures({ 400: ['VALIDATION_ERROR', 'INVALID_EMAIL'], 403: origins }, service(...passwordOnly)),
        },
      }),
    },
    [`${base}/reset-password/{token}`]: {
      get: operation({
        operationId: 'resetPasswordCallback',
        summary: 'Open a password reset link',
        description:
          'Redirects to the callbackURL with `?token=<token>`, or with `?error=INVALID_TOKEN` when the link is unknown, used or expired.',
        parameters: [
          {
            name: 'token',
            in: 'path',
            required: true,
            description: 'The token of the link.',
            schema: { type: 'string' },
          },
          {
            name: 'callbackURL',
            in: 'query',
            required: true,
            description: 'Where the reset page is.',
            schema: { type: 'string' },
          },
        ],
        responses: {
          '302': redirect('To the reset page, with the token or an error.'),
          ...failures({ 400: ['VALIDATION_ERROR'], 403: ['INVALID_CALLBACK_URL', 'INVALID_REDIRECT_URL'] }, [
            'INVALID_QUERY_PARAMS',
            'INTERNAL_ERROR',
          ]),
        },
      }),
    },
    [`${base}/reset-password`]: {
      post: operation({
        operationId: 'resetPassword',
        summary: 'Set a new password with a reset token',
        description:
          'Sets the password, once per link, and ends every session of the user' +
          (revokeKeys
            ? '; it also revokes all their API keys, which ends the streams open with them (`auth.passwordReset.revokeKeys`).'
            : '; API keys stay (`auth.passwordReset.revokeKeys` is off).') +
          throttleNote('Wrong tokens per client address'),
        requestBody: identityBody('ResetPasswordBody', 'The token and the new password.'),
        responses: {
          '200': jsonAnswer('The password was set.', 'AccountStatusResult'),
          ...failures(
            {
              400: ['VALIDATION_ERROR', 'INVALID_TOKEN', 'PASSWORD_TOO_SHORT', 'PASSWORD_TOO_LONG', 'USER_NOT_FOUND'],
              403: origins,
            },
            service(...passwordOnly),
          ),
        },
      }),
    },
    [`${base}/change-password`]: {
      post: operation({
        operationId: 'changePassword',
        summary: 'Change the password',
        description:
          'For the signed-in user, who gives the current password.' +
          throttleNote('Wrong current passwords count as failed sign-ins:'),
        security: signedIn(),
        requestBody: identityBody('ChangePasswordBody', 'The current and the new password.'),
        responses: {
          '200': jsonAnswer(
            'Changed.',
            'ChangePasswordResult',
            sessionCookieHeader('A new session cookie when other sessions were revoked.'),
          ),
          ...failures(
            {
              400: [
                'VALIDATION_ERROR',
                'INVALID_PASSWORD',
                'PASSWORD_TOO_SHORT',
                'PASSWORD_TOO_LONG',
                'CREDENTIAL_ACCOUNT_NOT_FOUND',
              ],
              401: ['UNAUTHORIZED'],
              403: origins,
            },
            service(...passwordOnly),
          ),
        },
      }),
    },
    [`${base}/change-email`]: {
      post: operation({
        operationId: 'changeEmail',
        summary: 'Change the email address',
        description:
          'Mails a confirmation link to the new address; the email changes when it is followed (`GET ' +
          base +
          '/verify-email`). An address ' +
          'that already has an account gets the same answer and no mail.' +
          throttleNote('Requests per user and per client address'),
        security: signedIn(),
        requestBody: identityBody('ChangeEmailBody', 'The new address.'),
        responses: {
          '200': jsonAnswer('The confirmation link was sent.', 'AccountStatusResult'),
          ...failures({ 400: ['VALIDATION_ERROR', 'INVALID_EMAIL'], 401: ['UNAUTHORIZED'], 403: origins }, service()),
        },
      }),
    },
    [`${base}/delete-user`]: {
      post: operation({
        operationId: 'deleteUser',
        summary: 'Delete the account',
        description:
          'With the current password the account is deleted at once; without one (a user who signs in only with a social or OIDC ' +
          'provider) a confirmation link is mailed. Deleting removes the user, their sessions and their API keys, and ends ' +
          'their open streams on every node; the records they wrote stay.' +
          throttleNote('Wrong passwords count as failed sign-ins, and mailed links are counted:'),
        security: signedIn(),
        requestBody: identityBody(
          'DeleteUserBody',
          'The password, or nothing (a link is mailed), or the token of the link.',
        ),
        responses: {
          '200': jsonAnswer(
            'Deleted, or the confirmation link was sent.',
            'DeleteUserResult',
            sessionCookieHeader('The session cookies, cleared.'),
          ),
          ...failures(
            {
              400: ['VALIDATION_ERROR', 'INVALID_PASSWORD', 'CREDENTIAL_ACCOUNT_NOT_FOUND', 'PASSWORD_TOO_LONG'],
              401: ['UNAUTHORIZED'],
              403: origins,
              404: ['INVALID_TOKEN'],
            },
            service(),
          ),
        },
      }),
    },
    [`${base}/delete-user/callback`]: {
      get: operation({
        operationId: 'deleteUserCallback',
        summary: 'Follow an account deletion link',
        description:
          'Deletes the account of the signed-in user the link was mailed to; redirects to the callbackURL when one was given.',
        security: signedIn(),
        parameters: [
          {
            name: 'token',
            in: 'query',
            required: true,
            description: 'The token of the link.',
            schema: { type: 'string' },
          },
          { name: 'callbackURL', in: 'query', description: 'Where to go afterwards.', schema: { type: 'string' } },
        ],
        responses: {
          '200': jsonAnswer('Deleted.', 'DeleteUserResult'),
          '302': redirect('Deleted; to the callbackURL.', sessionCookieHeader('The session cookies, cleared.')),
          ...failures(
            {
              400: ['VALIDATION_ERROR'],
              403: ['INVALID_CALLBACK_URL'],
              404: ['INVALID_TOKEN', 'FAILED_TO_GET_USER_INFO'],
            },
            ['INVALID_QUERY_PARAMS', 'INTERNAL_ERROR'],
          ),
        },
      }),
    },
    [`${base}/list-sessions`]: {
      get: operation({
        operationId: 'listSessions',
        summary: "The user's sessions",
        description: 'Every unexpired session of the signed-in user, each with the token that revokes it.',
        security: signedIn(),
        responses: {
          '200': jsonAnswer('The sessions.', 'SessionList'),
          ...failures({ 401: ['UNAUTHORIZED'] }, ['INVALID_QUERY_PARAMS', 'INTERNAL_ERROR']),
        },
      }),
    },
    [`${base}/revoke-session`]: {
      post: operation({
        operationId: 'revokeSession',
        summary: "End one of the user's sessions",
        description:
          "Ends the session with this token if it is the signed-in user's own; another user's token is ignored. API keys stay.",
        security: signedIn(),
        requestBody: identityBody('RevokeSessionBody', 'The session to end.'),
        responses: {
          '200': jsonAnswer('Ended.', 'AccountStatusResult'),
          ...failures({ 400: ['VALIDATION_ERROR'], 401: ['UNAUTHORIZED'], 403: origins }, [
            ...FORM_BODY_CODES,
            'INTERNAL_ERROR',
          ]),
        },
      }),
    },
    [`${base}/revoke-sessions`]: {
      post: operation({
        operationId: 'revokeSessions',
        summary: "End all the user's sessions",
        description: 'Signs the user out everywhere, this session included. API keys stay.',
        security: signedIn(),
        responses: {
          '200': jsonAnswer('Ended.', 'AccountStatusResult'),
          ...failures({ 401: ['UNAUTHORIZED'], 403: origins }, [...FORM_BODY_CODES, 'INTERNAL_ERROR']),
        },
      }),
    },
    [`${base}/revoke-other-sessions`]: {
      post: operation({
        operationId: 'revokeOtherSessions',
        summary: "End the user's other sessions",
        description: 'Signs the user out everywhere else. API keys stay.',
        security: signedIn(),
        responses: {
          '200': jsonAnswer('Ended.', 'AccountStatusResult'),
          ...failures({ 401: ['UNAUTHORIZED'], 403: origins }, [...FORM_BODY_CODES, 'INTERNAL_ERROR']),
        },
      }),
    },
  };
}
