// The endpoints the sign-in plugins add under `auth.basePath` (docs/authentication.md): emailed sign-in
// links (auth.magicLink), emailed one-time codes (auth.emailOtp) and a user's own TOTP two-factor
// (auth.twoFactor). Each is described only while its setting is on. They are better-auth's endpoints;
// svc puts the login throttle in front of the ones that mail or check a code
// (auth/identity/guarded-account-routes.ts) and closes the email-OTP plugin's own password reset.
import { LOGIN_THROTTLE_DEFAULTS } from '../../config/config-schema.ts';
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

export const SIGN_IN_PLUGIN_SCHEMAS = [
  'MagicLinkBody',
  'EmailOtpSendBody',
  'EmailOtpSignInBody',
  'EmailOtpCheckBody',
  'PluginSuccessResult',
  'PluginSignInResult',
  'TwoFactorPasswordBody',
  'TwoFactorEnableResult',
  'TwoFactorTotpUriResult',
  'TwoFactorCodeBody',
  'TwoFactorBackupCodesResult',
] as const;

export const SIGN_IN_PLUGIN_OPERATIONS = [
  'signInMagicLink',
  'verifyMagicLink',
  'sendEmailOtp',
  'signInEmailOtp',
  'verifyEmailOtp',
  'checkEmailOtp',
  'enableTwoFactor',
  'disableTwoFactor',
  'getTotpUri',
  'verifyTotp',
  'verifyBackupCode',
  'generateBackupCodes',
] as const;

/** The schemas of the plugins that are on (a document lists no component nothing uses). */
export function signInPluginSchemas(
  config: SvcConfig,
): Partial<Record<(typeof SIGN_IN_PLUGIN_SCHEMAS)[number], JsonSchema>> {
  const all = allSignInPluginSchemas();
  const { magicLink, emailOtp, twoFactor } = config.auth;
  const used = new Set<(typeof SIGN_IN_PLUGIN_SCHEMAS)[number]>();
  if (magicLink?.enabled)
    for (const name of ['MagicLinkBody', 'PluginSuccessResult', 'PluginSignInResult'] as const) used.add(name);
  if (emailOtp?.enabled) {
    for (const name of [
      'EmailOtpSendBody',
      'EmailOtpSignInBody',
      'EmailOtpCheckBody',
      'PluginSuccessResult',
      'PluginSignInResult',
    ] as const)
      used.add(name);
  }
  if (twoFactor?.enabled) {
    for (const name of [
      'TwoFactorPasswordBody',
      'TwoFactorEnableResult',
      'TwoFactorTotpUriResult',
      'TwoFactorCodeBody',
      'TwoFactorBackupCodesResult',
      'PluginSuccessResult',
      'PluginSignInResult',
    ] as const)
      used.add(name);
  }
  return Object.fromEntries(SIGN_IN_PLUGIN_SCHEMAS.filter((name) => used.has(name)).map((name) => [name, all[name]]));
}

function allSignInPluginSchemas(): Record<(typeof SIGN_IN_PLUGIN_SCHEMAS)[number], JsonSchema> {
  // A function: each use gets its own object (the document must be a plain tree, no shared nodes).
  const email = (): JsonSchema => ({ type: 'string', format: 'email', examples: ['ada@example.com'] });
  const callback = (what: string): JsonSchema => ({
    type: 'string',
    description: `Where to send the browser ${what}: a relative path or a URL on a trusted origin.`,
  });
  return {
    MagicLinkBody: {
      type: 'object',
      required: ['email'],
      properties: {
        email: email(),
        name: { type: 'string', description: 'The name of a user created by this sign-in' },
        callbackURL: callback('once signed in'),
        newUserCallbackURL: callback('when the link created the user'),
        errorCallbackURL: callback('when the link is not valid'),
      },
    },
    EmailOtpSendBody: {
      type: 'object',
      required: ['email', 'type'],
      properties: {
        email: email(),
        type: {
          type: 'string',
          enum: ['sign-in', 'email-verification'],
          description: 'What the code is for (a password reset code is not offered: resets use the mailed link)',
        },
      },
    },
    EmailOtpSignInBody: {
      type: 'object',
      required: ['email', 'otp'],
      properties: { email: email(), otp: { type: 'string', writeOnly: true, description: 'The mailed code' } },
    },
    EmailOtpCheckBody: {
      type: 'object',
      required: ['email', 'type', 'otp'],
      properties: {
        email: email(),
        type: { type: 'string', enum: ['sign-in', 'email-verification'] },
        otp: { type: 'string', writeOnly: true },
      },
    },
    PluginSuccessResult: {
      type: 'object',
      properties: { status: { type: 'boolean' }, success: { type: 'boolean' } },
    },
    PluginSignInResult: {
      type: 'object',
      required: ['token', 'user'],
      properties: {
        token: {
          type: 'string',
          description: 'The session token (`Authorization: Bearer` for /token and account calls)',
        },
        user: schemaRef('IdentityUser'),
      },
    },
    TwoFactorPasswordBody: {
      type: 'object',
      required: ['password'],
      properties: { password: { type: 'string', writeOnly: true, description: "The user's current password" } },
    },
    TwoFactorEnableResult: {
      type: 'object',
      required: ['totpURI', 'backupCodes'],
      properties: {
        totpURI: {
          type: 'string',
          description: 'otpauth:// URI for an authenticator app (its `secret` parameter can be typed in)',
        },
        backupCodes: { type: 'array', items: { type: 'string' }, description: 'Single-use codes, shown only here' },
      },
    },
    TwoFactorTotpUriResult: {
      type: 'object',
      required: ['totpURI'],
      properties: { totpURI: { type: 'string' } },
    },
    TwoFactorCodeBody: {
      type: 'object',
      required: ['code'],
      properties: {
        code: { type: 'string', writeOnly: true, description: 'The current code of the app, or a backup code' },
        trustDevice: { type: 'boolean', description: 'Skip the code on this browser for 30 days' },
      },
    },
    TwoFactorBackupCodesResult: {
      type: 'object',
      required: ['status', 'backupCodes'],
      properties: { status: { type: 'boolean' }, backupCodes: { type: 'array', items: { type: 'string' } } },
    },
  };
}

export function signInPluginPaths(config: SvcConfig): Record<string, OpenApiObject> {
  const base = config.auth.basePath.replace(/\/+$/, '');
  const throttled = (config.auth.loginThrottle ?? LOGIN_THROTTLE_DEFAULTS).enabled;
  const limited: Record<number, readonly string[]> = { 429: [] };
  const origins = ['MISSING_OR_NULL_ORIGIN', 'INVALID_ORIGIN', 'INVALID_CALLBACK_URL', 'INVALID_REDIRECT_URL'];
  const signedIn = (): OpenApiObject[] => [{ [SESSION_COOKIE_SCHEME]: [] }, { [SESSION_TOKEN_SCHEME]: [] }];
  const operation = (fields: OpenApiObject): OpenApiObject => ({ tags: [IDENTITY_TAG], security: [], ...fields });
  const service = (throttledHere: boolean): ErrorCode[] => [
    ...FORM_BODY_CODES,
    'INTERNAL_ERROR',
    ...(throttled && throttledHere ? (['RATE_LIMITED'] as const) : []),
  ];
  const failures = (identity: Record<number, readonly string[]>, throttledHere: boolean) =>
    failureResponses({ identity: { ...limited, 500: [], ...identity }, service: service(throttledHere) });
  const throttleNote = (what: string): string =>
    throttled ? ` ${what} go through the login throttle (\`auth.loginThrottle\`).` : '';
  const signedInAnswer = (what: string) =>
    jsonAnswer(what, 'PluginSignInResult', sessionCookieHeader('The session cookie.'));
  const paths: Record<string, OpenApiObject> = {};

  const { magicLink, emailOtp, twoFactor } = config.auth;
  if (magicLink?.enabled) {
    paths[`${base}/sign-in/magic-link`] = {
      post: operation({
        operationId: 'signInMagicLink',
        summary: 'Mail a sign-in link',
        description:
          `Mails a single-use link, valid for ${magicLink.expiresIn} s; following it signs the user in (creating them when the ` +
          'address is new). The answer is the same for every address.' +
          throttleNote('Requests per email and per client address'),
        requestBody: identityBody('MagicLinkBody', 'The address, and where the link should land.'),
        responses: {
          '200': jsonAnswer('Sent.', 'PluginSuccessResult'),
          ...failures({ 400: ['VALIDATION_ERROR'], 403: origins }, true),
        },
      }),
    };
    paths[`${base}/magic-link/verify`] = {
      get: operation({
        operationId: 'verifyMagicLink',
        summary: 'Follow a sign-in link',
        description:
          'Signs the user in and redirects to the callbackURL (to the errorCallbackURL with `?error=` when the link is not valid).',
        parameters: [
          {
            name: 'token',
            in: 'query',
            required: true,
            description: 'The token of the link.',
            schema: { type: 'string' },
          },
          { name: 'callbackURL', in: 'query', description: 'Where to go once signed in.', schema: { type: 'string' } },
        ],
        responses: {
          '200': signedInAnswer('Signed in (no callbackURL).'),
          '302': redirect('Signed in, or the error page.', sessionCookieHeader('The session cookie, when signed in.')),
          ...failureResponses({
            identity: { ...limited, 400: ['VALIDATION_ERROR'], 403: ['INVALID_CALLBACK_URL'], 500: [] },
            service: ['INVALID_QUERY_PARAMS', 'INTERNAL_ERROR'],
          }),
        },
      }),
    };
  }
  if (emailOtp?.enabled) {
    const codeNote = throttleNote('Wrong codes count as failed sign-ins and');
    paths[`${base}/email-otp/send-verification-otp`] = {
      post: operation({
        operationId: 'sendEmailOtp',
        summary: 'Mail a one-time code',
        description:
          `Mails a six-digit code, valid for ${emailOtp.expiresIn} s and for three tries. The answer is the same for every address.` +
          throttleNote('Requests per email and per client address'),
        requestBody: identityBody('EmailOtpSendBody', 'The address and what the code is for.'),
        responses: {
          '200': jsonAnswer('Sent.', 'PluginSuccessResult'),
          ...failures({ 400: ['VALIDATION_ERROR', 'INVALID_EMAIL'], 403: origins }, true),
        },
      }),
    };
    paths[`${base}/sign-in/email-otp`] = {
      post: operation({
        operationId: 'signInEmailOtp',
        summary: 'Sign in with a mailed code',
        description: `Signs the user in (creating them when the address is new).${codeNote}`,
        requestBody: identityBody('EmailOtpSignInBody', 'The address and the code.'),
        responses: {
          '200': signedInAnswer('Signed in.'),
          ...failures(
            { 400: ['VALIDATION_ERROR', 'INVALID_OTP', 'OTP_EXPIRED'], 403: ['TOO_MANY_ATTEMPTS', ...origins] },
            true,
          ),
        },
      }),
    };
    paths[`${base}/email-otp/verify-email`] = {
      post: operation({
        operationId: 'verifyEmailOtp',
        summary: 'Verify an email address with a mailed code',
        description: `Marks the address verified (and signs the user in when auto sign-in after verification is on).${codeNote}`,
        requestBody: identityBody('EmailOtpSignInBody', 'The address and the code.'),
        responses: {
          '200': jsonAnswer(
            'Verified.',
            'PluginSuccessResult',
            sessionCookieHeader('The session cookie, when signed in.'),
          ),
          ...failures(
            {
              400: ['VALIDATION_ERROR', 'INVALID_OTP', 'OTP_EXPIRED', 'USER_NOT_FOUND'],
              403: ['TOO_MANY_ATTEMPTS', ...origins],
            },
            true,
          ),
        },
      }),
    };
    paths[`${base}/email-otp/check-verification-otp`] = {
      post: operation({
        operationId: 'checkEmailOtp',
        summary: 'Check a mailed code without using it',
        description: `Tells whether the code is right.${codeNote}`,
        requestBody: identityBody('EmailOtpCheckBody', 'The address, what the code is for, and the code.'),
        responses: {
          '200': jsonAnswer('The code is right.', 'PluginSuccessResult'),
          ...failures(
            {
              400: ['VALIDATION_ERROR', 'INVALID_OTP', 'OTP_EXPIRED', 'USER_NOT_FOUND'],
              403: ['TOO_MANY_ATTEMPTS', ...origins],
            },
            true,
          ),
        },
      }),
    };
  }
  if (twoFactor?.enabled) {
    const signedInPost = (fields: OpenApiObject) => ({ post: operation({ security: signedIn(), ...fields }) });
    const passwordFailures = () =>
      failures({ 400: ['VALIDATION_ERROR', 'INVALID_PASSWORD'], 401: ['UNAUTHORIZED'], 403: origins }, false);
    paths[`${base}/two-factor/enable`] = signedInPost({
      operationId: 'enableTwoFactor',
      summary: 'Start turning two-factor on',
      description:
        'Answers the otpauth URI and ten backup codes; two-factor is on once a first code is verified (`two-factor/verify-totp`).',
      requestBody: identityBody('TwoFactorPasswordBody', 'The current password.'),
      responses: { '200': jsonAnswer('The URI and the backup codes.', 'TwoFactorEnableResult'), ...passwordFailures() },
    });
    paths[`${base}/two-factor/disable`] = signedInPost({
      operationId: 'disableTwoFactor',
      summary: 'Turn two-factor off',
      requestBody: identityBody('TwoFactorPasswordBody', 'The current password.'),
      responses: { '200': jsonAnswer('Off.', 'PluginSuccessResult'), ...passwordFailures() },
    });
    paths[`${base}/two-factor/get-totp-uri`] = signedInPost({
      operationId: 'getTotpUri',
      summary: 'The otpauth URI again',
      requestBody: identityBody('TwoFactorPasswordBody', 'The current password.'),
      responses: { '200': jsonAnswer('The URI.', 'TwoFactorTotpUriResult'), ...passwordFailures() },
    });
    paths[`${base}/two-factor/generate-backup-codes`] = signedInPost({
      operationId: 'generateBackupCodes',
      summary: 'New backup codes',
      description: 'Replaces the backup codes; the old ones stop working.',
      requestBody: identityBody('TwoFactorPasswordBody', 'The current password.'),
      responses: { '200': jsonAnswer('The new codes.', 'TwoFactorBackupCodesResult'), ...passwordFailures() },
    });
    const codeFailures = () =>
      failures(
        {
          400: ['VALIDATION_ERROR'],
          401: ['INVALID_CODE', 'INVALID_TWO_FACTOR_COOKIE', 'UNAUTHORIZED', 'INVALID_BACKUP_CODE'],
          403: origins,
        },
        false,
      );
    paths[`${base}/two-factor/verify-totp`] = {
      post: operation({
        operationId: 'verifyTotp',
        summary: 'Give the app code',
        description:
          'After a password sign-in that answered `twoFactorRedirect` (its two-factor cookie), completes the sign-in; for a signed-in ' +
          'user turning two-factor on, confirms it. Either way a new session is answered.',
        requestBody: identityBody('TwoFactorCodeBody', 'The code.'),
        responses: { '200': signedInAnswer('Signed in.'), ...codeFailures() },
      }),
    };
    paths[`${base}/two-factor/verify-backup-code`] = {
      post: operation({
        operationId: 'verifyBackupCode',
        summary: 'Give a backup code',
        description: 'Completes a pending sign-in with one of the backup codes, which is then used up.',
        requestBody: identityBody('TwoFactorCodeBody', 'The backup code.'),
        responses: { '200': signedInAnswer('Signed in.'), ...codeFailures() },
      }),
    };
  }
  return paths;
}
