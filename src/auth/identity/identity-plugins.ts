// The better-auth plugins svc turns on from its settings: OIDC providers (genericOAuth), emailed sign-in
// links (magicLink) and codes (emailOTP), and TOTP two-factor (twoFactor). Each is off unless configured.
import type { BetterAuthPlugin } from 'better-auth';
// Each plugin from its own entry point: the plugins index would load all of better-auth's plugins.
import { emailOTP } from 'better-auth/plugins/email-otp';
import { magicLink } from 'better-auth/plugins/magic-link';
import { twoFactor } from 'better-auth/plugins/two-factor';
import type { FastifyBaseLogger } from 'fastify';
import type { SvcConfig } from '../../config/config-types.ts';
import { oidcPlugin } from './oidc-providers.ts';
import { sendMagicLink, sendOneTimeCode } from './sign-in-mail.ts';
import type { VerificationMailer } from './verification-mailer.ts';

export const TWO_FACTOR_TABLE = 'svc_two_factors';

export function identityPlugins(
  config: SvcConfig,
  mailer: VerificationMailer,
  log: FastifyBaseLogger,
): BetterAuthPlugin[] {
  const plugins: BetterAuthPlugin[] = [];
  const oidc = oidcPlugin(config);
  if (oidc) plugins.push(oidc);
  const { magicLink: link, emailOtp: code, twoFactor: second } = config.auth;
  if (link?.enabled) {
    plugins.push(
      magicLink({
        expiresIn: link.expiresIn,
        // Only a hash is stored: a leaked verification table cannot sign anyone in.
        storeToken: 'hashed',
        // Not awaited: how long the mail server takes must not tell whether the address is known.
        sendMagicLink: async ({ email, url }) => void sendMagicLink(mailer, log, email, url, link.expiresIn),
      }),
    );
  }
  if (code?.enabled) {
    plugins.push(
      emailOTP({
        expiresIn: code.expiresIn,
        storeOTP: 'hashed',
        allowedAttempts: 3,
        sendVerificationOTP: async ({ email, otp, type }) =>
          void sendOneTimeCode(mailer, log, email, otp, type, code.expiresIn),
      }),
    );
  }
  if (second?.enabled) {
    plugins.push(twoFactor({ issuer: second.issuer ?? 'svc', twoFactorTable: TWO_FACTOR_TABLE }));
  }
  return plugins;
}
