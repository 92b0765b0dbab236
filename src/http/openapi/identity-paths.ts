// The identity endpoints a person or a script calls (docs/authentication.md), under `auth.basePath`:
// sign-up and sign-in with email, the session, sign-out, email verification, and social sign-in when a
// provider has credentials. They belong to the identity component (better-auth), mounted by
// http/routes/identity-routes.ts; `/token` (token-path.ts) exchanges the same credentials for an API key.
import { LOGIN_THROTTLE_DEFAULTS, SIGN_UP_THROTTLE_DEFAULTS } from '../../config/config-schema.ts';
import type { SvcConfig } from '../../config/config-types.ts';
import { identityBaseUrl } from '../../auth/identity/build-identity-options.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import { enabledSocialProviders } from './identity-schemas.ts';
import {
  FORM_BODY_CODES,
  failureResponses,
  identityBody,
  jsonAnswer,
  redirect,
  sessionCookieHeader,
} from './identity-responses.ts';
import type { OpenApiObject } from './openapi-refs.ts';

// A resource tag is a resource name (lower snake_case), so this spelling cannot clash with one.
export const IDENTITY_TAG = 'Users';
export const SESSION_COOKIE_SCHEME = 'sessionCookie';
export const SESSION_TOKEN_SCHEME = 'sessionToken';
export const IDENTITY_OPERATIONS = [
  'signUpEmail',
  'signInEmail',
  'getSession',
  'signOut',
  'sendVerificationEmail',
  'verifyEmail',
  'signInSocial',
  'socialCallback',
  'getSignInMethods',
] as const;

/** better-auth names its cookies `svc.*`, with the `__Secure-` prefix when the service is reached over https. */
function sessionCookieName(config: SvcConfig): string {
  return `${identityBaseUrl(config).startsWith('https://') ? '__Secure-' : ''}svc.session_token`;
}

export function identitySecuritySchemes(config: SvcConfig): OpenApiObject {
  return {
    [SESSION_COOKIE_SCHEME]: {
      type: 'apiKey',
      in: 'cookie',
      name: sessionCookieName(config),
      description:
        'The session cookie set by sign-in, sign-up and email verification. Browsers send it on their own; a request with ' +
        "cookies that changes something must come from a trusted origin (`auth.trustedOrigins` or the service's own).",
    },
    [SESSION_TOKEN_SCHEME]: {
      type: 'http',
      scheme: 'bearer',
      description:
        'The `token` of a sign-in answer (or its `set-auth-token` header), as `Authorization: Bearer <session token>`: the session without a cookie.',
    },
  };
}

export function identityPaths(config: SvcConfig): Record<string, OpenApiObject> {
  const base = config.auth.basePath.replace(/\/+$/, '');
  const throttled = (config.auth.loginThrottle ?? LOGIN_THROTTLE_DEFAULTS).enabled;
  const verifying = config.auth.requireEmailVerification;
  // better-auth's own limiter is on in production; its 429 carries only a message.
  const limited: Record<number, readonly string[]> = { 429: [] };
  // A request with cookies (or a sign-in from a page) that does not come from a trusted origin.
  const origins = ['MISSING_OR_NULL_ORIGIN', 'INVALID_ORIGIN', 'INVALID_CALLBACK_URL'];
  const operation = (fields: OpenApiObject): OpenApiObject => ({ tags: [IDENTITY_TAG], security: [], ...fields });
  const withBody = (
    identity: Record<number, readonly string[]>,
    service: readonly ErrorCode[] = [],
  ): Record<string, OpenApiObject> =>
    failureResponses({
      identity: { ...limited, 500: [], ...identity },
      service: [...FORM_BODY_CODES, 'BAD_REQUEST', 'INTERNAL_ERROR', ...service],
    });

  const signUpFailures: Record<number, readonly string[]> = {
    400: ['VALIDATION_ERROR', 'PASSWORD_TOO_SHORT', 'PASSWORD_TOO_LONG', 'INVALID_EMAIL'],
    403: [...origins, 'CROSS_SITE_NAVIGATION_LOGIN_BLOCKED'],
  };
  // With verification required, a registered email gets a 200 like a new one: sign-up tells nobody who is registered.
  if (!verifying) signUpFailures[422] = ['USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL'];

  const paths: Record<string, OpenApiObject> = {
    [`${base}/methods`]: {
      get: operation({
        operationId: 'getSignInMethods',
        summary: 'Which ways of signing in are on',
        description:
          'Public, and answered by svc itself: email and password, emailed links and codes, two-factor, and the social and OpenID Connect providers that are configured.',
        responses: { '200': jsonAnswer('The sign-in methods.', 'SignInMethods') },
      }),
    },
    [`${base}/sign-up/email`]: {
      post: operation({
        operationId: 'signUpEmail',
        summary: 'Sign up with an email and a password',
        description:
          `Creates a user with the role \`${config.auth.defaultRole}\`. ` +
          (verifying
            ? 'A verification link is sent (or logged when no SMTP server is set); there is no session until it is followed, and an email already registered gets the same answer as a new one.'
            : 'The answer starts a session (cookie and `token`); an email already registered is 422.'),
        requestBody: identityBody('SignUpEmailBody', 'The new user, as JSON or an HTML form post.'),
        responses: {
          '200': jsonAnswer(
            'The user was created.',
            'SignUpEmailResult',
            verifying ? {} : sessionCookieHeader('The session cookie.'),
          ),
          ...withBody(
            signUpFailures,
            (config.auth.signUpThrottle ?? SIGN_UP_THROTTLE_DEFAULTS).enabled ? ['RATE_LIMITED'] : [],
          ),
        },
      }),
    },
    [`${base}/sign-in/email`]: {
      post: operation({
        operationId: 'signInEmail',
        summary: 'Sign in with an email and a password',
        description:
          'Starts a session: the answer sets the session cookie and carries its token. Scripts are usually better off with an API key from `POST /token`.' +
          (throttled
            ? ' Failed attempts are throttled per email and per client address, together with `POST /token`.'
            : ''),
        requestBody: identityBody('SignInEmailBody', 'The credentials, as JSON or an HTML form post.'),
        responses: {
          '200': jsonAnswer('Signed in.', 'SignInEmailResult', sessionCookieHeader('The session cookie.')),
          ...withBody(
            {
              400: ['VALIDATION_ERROR', 'INVALID_EMAIL'],
              401: ['INVALID_EMAIL_OR_PASSWORD'],
              403: [...(verifying ? ['EMAIL_NOT_VERIFIED'] : []), ...origins, 'CROSS_SITE_NAVIGATION_LOGIN_BLOCKED'],
            },
            throttled ? ['RATE_LIMITED'] : [],
          ),
        },
      }),
    },
    [`${base}/get-session`]: {
      get: operation({
        operationId: 'getSession',
        summary: 'The current session and its user',
        description:
          'Answers null when no valid session (its cookie, or its token as a bearer token) was sent. API keys are not sessions: a key holder asks `GET /me`.',
        security: [{ [SESSION_COOKIE_SCHEME]: [] }, { [SESSION_TOKEN_SCHEME]: [] }, {}],
        responses: {
          '200': jsonAnswer('The session and its user, or null.', 'SessionResult', {
            'Cache-Control': {
              description: 'A session is never cached.',
              schema: { type: 'string', const: 'no-store' },
            },
          }),
          ...failureResponses({
            identity: { ...limited, 500: [] },
            service: ['INVALID_QUERY_PARAMS', 'INTERNAL_ERROR'],
          }),
        },
      }),
    },
    [`${base}/sign-out`]: {
      post: operation({
        operationId: 'signOut',
        summary: 'End the session',
        description:
          'Deletes the session (its cookie, or its token as a bearer token) and clears its cookies. Without a session it still succeeds. It does not revoke API keys.',
        security: [{ [SESSION_COOKIE_SCHEME]: [] }, { [SESSION_TOKEN_SCHEME]: [] }, {}],
        responses: {
          '200': jsonAnswer('Signed out.', 'SignOutResult', sessionCookieHeader('The session cookies, cleared.')),
          ...failureResponses({
            identity: { ...limited, 403: ['MISSING_OR_NULL_ORIGIN', 'INVALID_ORIGIN'], 500: [] },
            service: [...FORM_BODY_CODES, 'INTERNAL_ERROR'],
          }),
        },
      }),
    },
    [`${base}/send-verification-email`]: {
      post: operation({
        operationId: 'sendVerificationEmail',
        summary: 'Send a new email verification link',
        description: 'The link is mailed through `auth.email.smtpUrl`, or logged when none is set.',
        requestBody: identityBody('SendVerificationEmailBody', 'The address to verify.'),
        responses: {
          '200': jsonAnswer('Done, if a user has this email.', 'SendVerificationEmailResult'),
          ...withBody({ 400: ['VALIDATION_ERROR', 'EMAIL_MISMATCH', 'EMAIL_ALREADY_VERIFIED'], 403: origins }),
        },
      }),
    },
    [`${base}/verify-email`]: {
      get: operation({
        operationId: 'verifyEmail',
        summary: 'Follow an email verification link',
        description:
          'Marks the email verified and starts a session. With a `callbackURL` every outcome is a redirect there, failures with ' +
          '`?error=<code>` appended; without one the answer is JSON.',
        parameters: [
          {
            name: 'token',
            in: 'query',
            required: true,
            description: 'The token from the link.',
            schema: { type: 'string' },
          },
          {
            name: 'callbackURL',
            in: 'query',
            description: 'Where to redirect afterwards.',
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': jsonAnswer(
            'Verified (or verified already).',
            'VerifyEmailResult',
            sessionCookieHeader('The session cookie, on first verification.'),
          ),
          '302': redirect(
            'Redirect to the callbackURL, with `?error=<code>` when the link was not valid.',
            sessionCookieHeader('The session cookie, on first verification.'),
          ),
          ...failureResponses({
            identity: {
              ...limited,
              400: ['VALIDATION_ERROR'],
              401: ['INVALID_TOKEN', 'TOKEN_EXPIRED', 'USER_NOT_FOUND'],
              403: ['INVALID_CALLBACK_URL'],
              500: [],
            },
            service: ['INVALID_QUERY_PARAMS', 'INTERNAL_ERROR'],
          }),
        },
      }),
    },
  };

  const providers = enabledSocialProviders(config);
  if (providers.length > 0) {
    paths[`${base}/sign-in/social`] = {
      post: operation({
        operationId: 'signInSocial',
        summary: 'Start signing in with a social provider',
        description: `Answers the provider's authorization page (${providers.join(', ')}) and sets a short-lived state cookie; the provider later sends the browser to the callback.`,
        requestBody: identityBody('SignInSocialBody', 'The provider and where to go afterwards.'),
        responses: {
          '200': jsonAnswer("The provider's page to send the browser to.", 'SignInSocialResult', {
            Location: { description: "The provider's page, unless disableRedirect.", schema: { type: 'string' } },
            ...sessionCookieHeader('The state cookie the callback checks.'),
          }),
          ...withBody({ 400: ['VALIDATION_ERROR'], 403: origins, 404: ['PROVIDER_NOT_FOUND'] }),
        },
      }),
    };
    paths[`${base}/callback/{provider}`] = {
      get: operation({
        operationId: 'socialCallback',
        summary: 'Where the social provider sends the browser back',
        description: `Registered with the provider as \`${identityBaseUrl(config)}${base}/callback/<provider>\`. Checks the state cookie, signs the user in (creating them on first sign-in) and redirects to the callbackURL; on failure to the errorCallbackURL or \`${base}/error\`, with \`?error=<code>\`.`,
        parameters: [
          {
            name: 'provider',
            in: 'path',
            required: true,
            description: 'The provider.',
            schema: { type: 'string', enum: providers },
          },
          { name: 'code', in: 'query', description: "The provider's authorization code.", schema: { type: 'string' } },
          {
            name: 'state',
            in: 'query',
            description: 'The state set when sign-in started.',
            schema: { type: 'string' },
          },
          { name: 'error', in: 'query', description: 'Why the provider refused.', schema: { type: 'string' } },
        ],
        responses: {
          '302': redirect(
            'Signed in, or an error page with `?error=<code>`.',
            sessionCookieHeader('The session cookie, when signed in.'),
          ),
          ...failureResponses({
            identity: { ...limited, 500: [] },
            service: ['INVALID_QUERY_PARAMS', 'INTERNAL_ERROR'],
          }),
        },
      }),
    };
  }
  return paths;
}
