// The component schemas of the identity endpoints (identity-paths.ts): the users, sessions, bodies and
// answers of the identity component (better-auth) as svc configures it.
import type { SvcConfig } from '../../config/config-types.ts';
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { schemaRef } from './openapi-refs.ts';
import { enabledSocialProviders as socialProvidersOn } from '../../auth/identity/social-providers.ts';
import { oidcProviders } from '../../auth/identity/oidc-providers.ts';

export const IDENTITY_SCHEMAS = [
  'IdentityUser',
  'IdentitySession',
  'IdentityError',
  'SignUpEmailBody',
  'SignUpEmailResult',
  'SignInEmailBody',
  'SignInEmailResult',
  'SessionResult',
  'SignOutResult',
  'SendVerificationEmailBody',
  'SendVerificationEmailResult',
  'VerifyEmailResult',
  'SignInSocialBody',
  'SignInSocialResult',
  'SignInMethods',
] as const;

type IdentitySchema = (typeof IDENTITY_SCHEMAS)[number];

/** better-auth's password bounds, which svc keeps (build-identity-options.ts sets none). */
const PASSWORD_MIN_LENGTH = 8;
const PASSWORD_MAX_LENGTH = 128;

/** The providers `POST {basePath}/sign-in/social` serves: social ones with credentials, then the OIDC ones. */
export function enabledSocialProviders(config: SvcConfig): string[] {
  return [...socialProvidersOn(config).sort(), ...oidcProviders(config).map((provider) => provider.id)];
}

const dateTime = (): JsonSchema => ({ type: 'string', format: 'date-time' });
const nullableString = (description?: string): JsonSchema => ({
  type: ['string', 'null'],
  ...(description ? { description } : {}),
});
const callbackUrl = (what: string): JsonSchema => ({
  type: 'string',
  description: `Where to send the browser ${what}: a relative path or a URL on a trusted origin (otherwise 403 \`INVALID_CALLBACK_URL\`).`,
});

function allIdentitySchemas(config: SvcConfig): Record<IdentitySchema, JsonSchema> {
  const email = (): JsonSchema => ({ type: 'string', format: 'email', examples: ['ada@example.com'] });
  const password = (): JsonSchema => ({
    type: 'string',
    minLength: PASSWORD_MIN_LENGTH,
    maxLength: PASSWORD_MAX_LENGTH,
    writeOnly: true,
  });
  const rememberMe = (): JsonSchema => ({
    type: 'boolean',
    default: true,
    description: 'false: the session cookie ends with the browser session',
  });
  return {
    IdentityUser: {
      type: 'object',
      description: 'A user as the identity component shows it.',
      required: [
        'id',
        'name',
        'email',
        'emailVerified',
        'image',
        'createdAt',
        'updatedAt',
        'primaryRole',
        'allowedRoles',
      ],
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        email: email(),
        emailVerified: { type: 'boolean' },
        image: nullableString('URL of a picture'),
        createdAt: dateTime(),
        updatedAt: dateTime(),
        primaryRole: {
          type: 'string',
          description: `The role the user acts as; new users get \`${config.auth.defaultRole}\``,
        },
        allowedRoles: {
          type: 'string',
          description: 'JSON-encoded array of the roles the user may switch to',
          examples: ['[]', '["editor"]'],
        },
        ...(config.auth.twoFactor?.enabled
          ? { twoFactorEnabled: { type: 'boolean', description: 'The user turned two-factor on (auth.twoFactor)' } }
          : {}),
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
      properties: {
        email: email(),
        password: { type: 'string', writeOnly: true },
        callbackURL: callbackUrl('to after signing in'),
        rememberMe: rememberMe(),
      },
    },
    SignInEmailResult: {
      type: 'object',
      required: ['redirect', 'token', 'user'],
      properties: {
        redirect: {
          type: 'boolean',
          description: 'true when a callbackURL was given: a browser app should go to `url`',
        },
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
      properties: {
        status: { type: 'boolean', const: true },
        user: { anyOf: [schemaRef('IdentityUser'), { type: 'null' }] },
      },
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
        disableRedirect: {
          type: 'boolean',
          description: 'true: no `Location` header, the app sends the browser to `url` itself',
        },
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
    SignInMethods: {
      type: 'object',
      description: 'The ways of signing in that are on: a sign-in page shows a button for each.',
      required: ['emailAndPassword', 'magicLink', 'emailOtp', 'twoFactor', 'social', 'oidc'],
      properties: {
        emailAndPassword: { type: 'boolean' },
        magicLink: { type: 'boolean', description: 'POST `sign-in/magic-link`' },
        emailOtp: { type: 'boolean', description: 'POST `email-otp/send-verification-otp`, then `sign-in/email-otp`' },
        twoFactor: { type: 'boolean', description: 'Users may turn on TOTP two-factor (`two-factor/*`)' },
        social: { type: 'array', items: { type: 'string' }, description: 'Provider ids for social sign-in' },
        oidc: {
          type: 'array',
          description: 'OpenID Connect providers; social sign-in takes their id as `provider`',
          items: {
            type: 'object',
            required: ['id', 'name'],
            properties: { id: { type: 'string' }, name: { type: 'string' } },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
  };
}

export function identitySchemas(config: SvcConfig): Partial<Record<IdentitySchema, JsonSchema>> {
  const schemas: Partial<Record<IdentitySchema, JsonSchema>> = allIdentitySchemas(config);
  // Unused components would only confuse a reader (and Spectral warns of them).
  if (enabledSocialProviders(config).length === 0) {
    delete schemas.SignInSocialBody;
    delete schemas.SignInSocialResult;
  }
  return schemas;
}
