// How users get in (docs/authentication.md): the identity endpoints under `auth.basePath` that a person or
// a script calls (sign-up, sign-in, session, sign-out, email verification, social sign-in when a provider
// is on) and `POST /token`, which exchanges the same email and password for an API key.
// The identity endpoints belong to the identity component (better-auth): their answers and most of their
// errors are its plain JSON objects, while svc's own checks in front of it (body parsing, the login
// throttle) answer with JSON:API error documents. Each error response names which codes come in which form.
import { LOGIN_THROTTLE_DEFAULTS } from '../../config/config-schema.ts';
import type { SvcConfig } from '../../config/config-types.ts';
import { identityBaseUrl } from '../../auth/identity/build-identity-options.ts';
import { MAX_COUNT, MAX_EXPIRES_IN_SECONDS, MAX_INTERVAL_MS, TOKEN_FIELD_LIMITS } from '../../auth/keys/token-request.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../../errors/error-catalogue.ts';
import type { JsonSchema } from '../field-types/index.ts';
import { BODY_CODES, ERROR_DOCUMENT_SCHEMA, errorResponses, listCodes, statusReason } from './error-responses.ts';
import { headerRef, JSON_API_MEDIA_TYPE, JSON_MEDIA_TYPE, jsonRequestBody, schemaRef, type OpenApiObject } from './openapi-refs.ts';
import { AUTH_TAG } from './service-paths.ts';

// A resource tag is a resource name (lower snake_case), so this spelling cannot clash with one.
export const IDENTITY_TAG = 'Users';
export const SESSION_COOKIE_SCHEME = 'sessionCookie';

export const SIGN_IN_SCHEMAS = [
  'TokenRequest', 'TokenResponse', 'IdentityUser', 'IdentitySession', 'IdentityError',
  'SignUpEmailBody', 'SignUpEmailResult', 'SignInEmailBody', 'SignInEmailResult', 'SessionResult', 'SignOutResult',
  'SendVerificationEmailBody', 'SendVerificationEmailResult', 'VerifyEmailResult', 'SignInSocialBody', 'SignInSocialResult',
] as const;
export const SIGN_IN_OPERATIONS = [
  'createToken', 'signUpEmail', 'signInEmail', 'getSession', 'signOut', 'sendVerificationEmail', 'verifyEmail', 'signInSocial', 'socialCallback',
] as const;

type SignInSchema = (typeof SIGN_IN_SCHEMAS)[number];

/** better-auth's password bounds, which svc keeps (build-identity-options.ts sets none). */
const PASSWORD_MIN_LENGTH = 8;
const PASSWORD_MAX_LENGTH = 128;
const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

const FORM_BODY_CODES: readonly ErrorCode[] = [...BODY_CODES, 'INVALID_RESOURCE_DATA'];

/** The social providers with both credentials set, which are the only ones better-auth serves. */
export function enabledSocialProviders(config: SvcConfig): string[] {
  return Object.entries(config.auth.social)
    .filter(([, provider]) => Boolean(provider?.clientId?.trim() && provider.clientSecret?.trim()))
    .map(([name]) => name)
    .sort();
}

/** better-auth names its cookies `svc.*`, with the `__Secure-` prefix when the service is reached over https. */
function sessionCookieName(config: SvcConfig): string {
  return `${identityBaseUrl(config).startsWith('https://') ? '__Secure-' : ''}svc.session_token`;
}

export function signInSecuritySchemes(config: SvcConfig): OpenApiObject {
  return {
    [SESSION_COOKIE_SCHEME]: {
      type: 'apiKey',
      in: 'cookie',
      name: sessionCookieName(config),
      description:
        'The session cookie set by sign-in, sign-up and email verification. Browsers send it on their own; a request with ' +
        'cookies that changes something must come from a trusted origin (`auth.trustedOrigins` or the service\'s own).',
    },
  };
}

const dateTime = (): JsonSchema => ({ type: 'string', format: 'date-time' });
const nullableString = (description?: string): JsonSchema => ({ type: ['string', 'null'], ...(description ? { description } : {}) });
const callbackUrl = (what: string): JsonSchema => ({
  type: 'string',
  description: `Where to send the browser ${what}: a relative path or a URL on a trusted origin (otherwise 403 \`INVALID_CALLBACK_URL\`).`,
});

function tokenSchemas(config: SvcConfig): Record<'TokenRequest' | 'TokenResponse', JsonSchema> {
  const { max, timeWindow } = config.apiKeys.rateLimit;
  const tighten =
    `May only tighten the global default of ${max} requests per ${timeWindow} ms: rateLimitMax at most ${max}, and ` +
    `rateLimitMax × ceil(${timeWindow} / rateLimitTimeWindow) at most ${max}.`;
  const optionalInteger = (minimum: number, maximum: number, description: string): JsonSchema => ({ type: ['integer', 'null'], minimum, maximum, description });
  return {
    TokenRequest: {
      type: 'object',
      description: 'A flat JSON object; a field not listed here is refused (400 `INVALID_RESOURCE_DATA`). null is the same as leaving a field out.',
      required: ['email', 'password'],
      properties: {
        email: { type: 'string', minLength: 1, maxLength: TOKEN_FIELD_LIMITS.emailMaxLength, description: "The user's email, in any letter case", examples: ['ada@example.com'] },
        password: { type: 'string', minLength: 1, maxLength: TOKEN_FIELD_LIMITS.passwordMaxLength, writeOnly: true },
        permissions: {
          anyOf: [schemaRef('KeyPermissions'), { type: 'null' }],
          description: "The key's scopes; every resource, action and field must exist (400 `INVALID_PERMISSIONS`). Omitted: everything the user's role allows.",
        },
        name: { type: ['string', 'null'], minLength: 1, maxLength: TOKEN_FIELD_LIMITS.nameMaxLength, description: 'Label of the key' },
        metadata: { type: ['object', 'null'], description: `Your own data, kept with the key (at most ${TOKEN_FIELD_LIMITS.metadataMaxBytes} bytes as JSON)` },
        expiresIn: optionalInteger(1, MAX_EXPIRES_IN_SECONDS, 'Seconds until the key expires; omitted: never'),
        rateLimitMax: optionalInteger(1, MAX_COUNT, `Requests per window. ${tighten}`),
        rateLimitTimeWindow: optionalInteger(1, MAX_INTERVAL_MS, `Window length in milliseconds. ${tighten}`),
        refillInterval: optionalInteger(1, MAX_INTERVAL_MS, 'Milliseconds between refills of the request quota; give it with refillAmount'),
        refillAmount: optionalInteger(1, MAX_COUNT, 'Requests restored per refill; give it with refillInterval'),
        remaining: optionalInteger(1, MAX_COUNT, 'Request quota; when used up: 429 `USAGE_EXCEEDED`. Omitted with a refill: starts at refillAmount'),
      },
      additionalProperties: false,
    },
    TokenResponse: {
      type: 'object',
      description: 'The new API key. `key` is shown only in this response; only a hash is stored.',
      required: ['key', 'id', 'name', 'start', 'prefix', 'expiresAt', 'permissions'],
      properties: {
        key: { type: 'string', pattern: '^svc_', description: 'The full key, for `Authorization: Bearer`' },
        id: { type: 'string' },
        name: nullableString(),
        start: { type: 'string', description: 'First characters of the key, to recognise it' },
        prefix: { type: 'string', examples: ['svc_'] },
        expiresAt: { type: ['string', 'null'], format: 'date-time' },
        permissions: { anyOf: [schemaRef('KeyPermissions'), { type: 'null' }] },
      },
      additionalProperties: false,
    },
  };
}

function identitySchemas(config: SvcConfig): Record<Exclude<SignInSchema, 'TokenRequest' | 'TokenResponse'>, JsonSchema> {
  const email = (): JsonSchema => ({ type: 'string', format: 'email', examples: ['ada@example.com'] });
  const password = (): JsonSchema => ({ type: 'string', minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH, writeOnly: true });
  const rememberMe = (): JsonSchema => ({ type: 'boolean', default: true, description: 'false: the session cookie ends with the browser session' });
  return {
    IdentityUser: {
      type: 'object',
      description: 'A user as the identity component shows it.',
      required: ['id', 'name', 'email', 'emailVerified', 'image', 'createdAt', 'updatedAt', 'primaryRole', 'allowedRoles'],
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        email: email(),
        emailVerified: { type: 'boolean' },
        image: nullableString('URL of a picture'),
        createdAt: dateTime(),
        updatedAt: dateTime(),
        primaryRole: { type: 'string', description: `The role the user acts as; new users get \`${config.auth.defaultRole}\`` },
        allowedRoles: { type: 'string', description: 'JSON-encoded array of the roles the user may switch to', examples: ['[]', '["editor"]'] },
      },
      additionalProperties: false,
    },
    IdentitySession: {
      type: 'object',
      required: ['id', 'token', 'userId', 'expiresAt', 'createdAt', 'updatedAt'],
      properties: {
        id: { type: 'string' },
        token: { type: 'string', description: 'The session token the cookie carries (signed)' },
        userId: { type: 'string' },
        expiresAt: dateTime(),
        createdAt: dateTime(),
        updatedAt: dateTime(),
        ipAddress: nullableString('The client address the session was created from'),
        userAgent: nullableString(),
      },
      additionalProperties: false,
    },
    IdentityError: {
      type: 'object',
      description: "An error of the identity component; `code` is missing only on its own rate limiter's 429.",
      required: ['message'],
      properties: {
        message: { type: 'string' },
        code: { type: 'string', examples: ['INVALID_EMAIL_OR_PASSWORD'] },
      },
    },
    SignUpEmailBody: {
      type: 'object',
      description: 'The role cannot be chosen here: new users get `auth.defaultRole`.',
      required: ['name', 'email', 'password'],
      properties: {
        name: { type: 'string' },
        email: email(),
        password: password(),
        image: { type: 'string', description: 'URL of a picture' },
        callbackURL: callbackUrl('to from the verification link'),
        rememberMe: rememberMe(),
      },
    },
    SignUpEmailResult: {
      type: 'object',
      required: ['token', 'user'],
      properties: {
        token: nullableString('The session token; null when the email must be verified first (no session yet)'),
        user: schemaRef('IdentityUser'),
      },
      additionalProperties: false,
    },
    SignInEmailBody: {
      type: 'object',
      required: ['email', 'password'],
      properties: { email: email(), password: { type: 'string', writeOnly: true }, callbackURL: callbackUrl('to after signing in'), rememberMe: rememberMe() },
    },
    SignInEmailResult: {
      type: 'object',
      required: ['redirect', 'token', 'user'],
      properties: {
        redirect: { type: 'boolean', description: 'true when a callbackURL was given: a browser app should go to `url`' },
        token: { type: 'string', description: 'The session token' },
        url: { type: 'string', description: 'The callbackURL, when one was given' },
        user: schemaRef('IdentityUser'),
      },
      additionalProperties: false,
    },
    SessionResult: {
      anyOf: [
        {
          type: 'object',
          required: ['session', 'user'],
          properties: { session: schemaRef('IdentitySession'), user: schemaRef('IdentityUser') },
          additionalProperties: false,
        },
        { type: 'null', description: 'No valid session cookie was sent.' },
      ],
    },
    SignOutResult: {
      type: 'object',
      required: ['success'],
      properties: { success: { type: 'boolean', const: true } },
      additionalProperties: false,
    },
    SendVerificationEmailBody: {
      type: 'object',
      required: ['email'],
      properties: { email: email(), callbackURL: callbackUrl('to once the link is followed') },
    },
    SendVerificationEmailResult: {
      type: 'object',
      description: 'The same answer whether or not a user has this email, so it tells nothing about who is registered.',
      required: ['status'],
      properties: { status: { type: 'boolean', const: true } },
      additionalProperties: false,
    },
    VerifyEmailResult: {
      type: 'object',
      required: ['status', 'user'],
      properties: { status: { type: 'boolean', const: true }, user: { anyOf: [schemaRef('IdentityUser'), { type: 'null' }] } },
      additionalProperties: false,
    },
    SignInSocialBody: {
      type: 'object',
      required: ['provider'],
      properties: {
        provider: { type: 'string', enum: enabledSocialProviders(config) },
        callbackURL: callbackUrl('to after signing in'),
        newUserCallbackURL: callbackUrl('to after the first sign-in, which creates the user'),
        errorCallbackURL: callbackUrl('to when the provider refuses'),
        disableRedirect: { type: 'boolean', description: 'true: no `Location` header, the app sends the browser to `url` itself' },
        scopes: { type: 'array', items: { type: 'string' }, description: 'Extra scopes to ask the provider for' },
      },
    },
    SignInSocialResult: {
      type: 'object',
      required: ['url', 'redirect'],
      properties: {
        url: { type: 'string', format: 'uri', description: "The provider's authorization page" },
        redirect: { type: 'boolean' },
      },
      additionalProperties: false,
    },
  };
}

export function signInSchemas(config: SvcConfig): Partial<Record<SignInSchema, JsonSchema>> {
  const schemas: Partial<Record<SignInSchema, JsonSchema>> = { ...tokenSchemas(config), ...identitySchemas(config) };
  // Unused components would only confuse a reader (and Spectral warns of them).
  if (enabledSocialProviders(config).length === 0) {
    delete schemas.SignInSocialBody;
    delete schemas.SignInSocialResult;
  }
  return schemas;
}

/** The errors of one identity operation: better-auth's codes by status, and svc's own codes. */
interface Failures {
  identity: Readonly<Record<number, readonly string[]>>;
  service: readonly ErrorCode[];
}

const ticked = (codes: readonly string[]): string => codes.map((code) => `\`${code}\``).join(', ');

function failureResponses({ identity, service }: Failures): Record<string, OpenApiObject> {
  const serviceByStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(service)) {
    const status = ERROR_CATALOGUE[code].status;
    serviceByStatus.set(status, [...(serviceByStatus.get(status) ?? []), code]);
  }
  const statuses = [...new Set([...Object.keys(identity).map(Number), ...serviceByStatus.keys()])].sort((a, b) => a - b);
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
      parts.push(own.length > 0 ? `${ticked(own)} from the identity component (\`{ code, message }\`)` : 'the identity component');
      content[JSON_MEDIA_TYPE] = { schema: schemaRef('IdentityError') };
      if (status === 429) headers['X-Retry-After'] = { description: 'Seconds until the identity component takes requests again.', schema: { type: 'integer', minimum: 0 } };
    }
    responses[String(status)] = { description: `${statusReason(status)}: ${parts.join('; ')}.`, headers, content };
  }
  return responses;
}

function jsonAnswer(description: string, schema: string, extraHeaders: OpenApiObject = {}): OpenApiObject {
  return { description, headers: { 'X-Request-Id': headerRef('XRequestId'), ...extraHeaders }, content: { [JSON_MEDIA_TYPE]: { schema: schemaRef(schema) } } };
}

function identityBody(schema: string, description: string): OpenApiObject {
  return { description, required: true, content: { [JSON_MEDIA_TYPE]: { schema: schemaRef(schema) }, [FORM_MEDIA_TYPE]: { schema: schemaRef(schema) } } };
}

const sessionCookieHeader = (what: string): OpenApiObject => ({ 'Set-Cookie': { description: what, schema: { type: 'string' } } });
const redirect = (description: string, extraHeaders: OpenApiObject = {}): OpenApiObject => ({
  description,
  headers: { 'X-Request-Id': headerRef('XRequestId'), Location: { description: 'Where the browser goes next.', schema: { type: 'string' } }, ...extraHeaders },
});

export function signInPaths(config: SvcConfig): Record<string, OpenApiObject> {
  const base = config.auth.basePath.replace(/\/+$/, '');
  const throttled = (config.auth.loginThrottle ?? LOGIN_THROTTLE_DEFAULTS).enabled;
  const verifying = config.auth.requireEmailVerification;
  // better-auth's own limiter is on in production; its 429 carries only a message.
  const limited: Record<number, readonly string[]> = { 429: [] };
  // A request with cookies (or a sign-in from a page) that does not come from a trusted origin.
  const origins = ['MISSING_OR_NULL_ORIGIN', 'INVALID_ORIGIN', 'INVALID_CALLBACK_URL'];
  const operation = (fields: OpenApiObject): OpenApiObject => ({ tags: [IDENTITY_TAG], security: [], ...fields });
  const withBody = (identity: Record<number, readonly string[]>, service: readonly ErrorCode[] = []): Record<string, OpenApiObject> =>
    failureResponses({ identity: { ...limited, 500: [], ...identity }, service: [...FORM_BODY_CODES, 'INTERNAL_ERROR', ...service] });

  const tokenErrors: ErrorCode[] = [...BODY_CODES, 'INVALID_RESOURCE_DATA', 'INVALID_PERMISSIONS', 'INVALID_CREDENTIALS', 'INTERNAL_ERROR'];
  if (verifying) tokenErrors.push('EMAIL_NOT_VERIFIED');
  if (throttled) tokenErrors.push('RATE_LIMITED');

  const signUpFailures: Record<number, readonly string[]> = {
    400: ['VALIDATION_ERROR', 'PASSWORD_TOO_SHORT', 'PASSWORD_TOO_LONG', 'INVALID_EMAIL'],
    403: [...origins, 'CROSS_SITE_NAVIGATION_LOGIN_BLOCKED'],
  };
  // With verification required, a registered email gets a 200 like a new one: sign-up tells nobody who is registered.
  if (!verifying) signUpFailures[422] = ['USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL'];

  const paths: Record<string, OpenApiObject> = {
    '/token': {
      post: {
        tags: [AUTH_TAG],
        operationId: 'createToken',
        summary: 'Issue an API key',
        description:
          "Exchanges a user's email and password for an API key, with optional scopes, expiry and limits. Needs no Authorization " +
          'header. An unknown email and a wrong password get the same answer.' +
          (throttled ? ' Failed attempts are throttled per email and per client address, together with `' + base + '/sign-in/email`.' : ''),
        security: [],
        requestBody: jsonRequestBody('TokenRequest', 'Credentials and options of the new key, as a flat JSON object.'),
        responses: {
          '201': jsonAnswer('The key was issued.', 'TokenResponse', { 'Cache-Control': { description: 'The answer holds a secret.', schema: { type: 'string', const: 'no-store' } } }),
          ...errorResponses(tokenErrors),
        },
      },
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
          '200': jsonAnswer('The user was created.', 'SignUpEmailResult', verifying ? {} : sessionCookieHeader('The session cookie.')),
          ...withBody(signUpFailures),
        },
      }),
    },
    [`${base}/sign-in/email`]: {
      post: operation({
        operationId: 'signInEmail',
        summary: 'Sign in with an email and a password',
        description:
          'Starts a session: the answer sets the session cookie and carries its token. Scripts are usually better off with an API key from `POST /token`.' +
          (throttled ? ' Failed attempts are throttled per email and per client address, together with `POST /token`.' : ''),
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
        description: 'Answers null when no valid session cookie was sent. API keys are not sessions: a key holder asks `GET /me`.',
        security: [{ [SESSION_COOKIE_SCHEME]: [] }, {}],
        responses: {
          '200': jsonAnswer('The session and its user, or null.', 'SessionResult', {
            'Cache-Control': { description: 'A session is never cached.', schema: { type: 'string', const: 'no-store' } },
          }),
          ...failureResponses({ identity: { ...limited, 500: [] }, service: ['INVALID_QUERY_PARAMS', 'INTERNAL_ERROR'] }),
        },
      }),
    },
    [`${base}/sign-out`]: {
      post: operation({
        operationId: 'signOut',
        summary: 'End the session',
        description: 'Deletes the session and clears its cookies. Without a session cookie it still succeeds. It does not revoke API keys.',
        security: [{ [SESSION_COOKIE_SCHEME]: [] }],
        responses: {
          '200': jsonAnswer('Signed out.', 'SignOutResult', sessionCookieHeader('The session cookies, cleared.')),
          ...failureResponses({ identity: { ...limited, 403: ['MISSING_OR_NULL_ORIGIN', 'INVALID_ORIGIN'], 500: [] }, service: [...FORM_BODY_CODES, 'INTERNAL_ERROR'] }),
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
          { name: 'token', in: 'query', required: true, description: 'The token from the link.', schema: { type: 'string' } },
          { name: 'callbackURL', in: 'query', description: 'Where to redirect afterwards.', schema: { type: 'string' } },
        ],
        responses: {
          '200': jsonAnswer('Verified (or verified already).', 'VerifyEmailResult', sessionCookieHeader('The session cookie, on first verification.')),
          '302': redirect('Redirect to the callbackURL, with `?error=<code>` when the link was not valid.', sessionCookieHeader('The session cookie, on first verification.')),
          ...failureResponses({
            identity: { ...limited, 400: ['VALIDATION_ERROR'], 401: ['INVALID_TOKEN', 'TOKEN_EXPIRED', 'USER_NOT_FOUND'], 403: ['INVALID_CALLBACK_URL'], 500: [] },
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
          { name: 'provider', in: 'path', required: true, description: 'The provider.', schema: { type: 'string', enum: providers } },
          { name: 'code', in: 'query', description: "The provider's authorization code.", schema: { type: 'string' } },
          { name: 'state', in: 'query', description: 'The state set when sign-in started.', schema: { type: 'string' } },
          { name: 'error', in: 'query', description: 'Why the provider refused.', schema: { type: 'string' } },
        ],
        responses: {
          '302': redirect('Signed in, or an error page with `?error=<code>`.', sessionCookieHeader('The session cookie, when signed in.')),
          ...failureResponses({ identity: { ...limited, 500: [] }, service: ['INVALID_QUERY_PARAMS', 'INTERNAL_ERROR'] }),
        },
      }),
    };
  }
  return paths;
}
