// better-auth's own account management, switched on and pointed at our mailer and key store:
// password reset (single-use link, revoking sessions and optionally keys), email change (a link to
// the new address) and account deletion (password, or a link). Merged into the identity options.
import type { BetterAuthOptions } from 'better-auth';
import type { FastifyBaseLogger } from 'fastify';
import { PASSWORD_RESET_DEFAULTS } from '../../config/config-schema.ts';
import type { SvcConfig } from '../../config/config-types.ts';
import type { MailKind, VerificationMailer } from './verification-mailer.ts';

/** What the rest of src/auth does when an account changes under better-auth's endpoints. */
export interface AccountEvents {
  /** A reset set a new password (sessions are already gone). */
  passwordReset(userId: string): Promise<void>;
  /** Before the user row goes: remove what hangs off it (API keys). */
  userDeleting(userId: string): Promise<void>;
  /** After: drop cached keys and end streams on every node. */
  userDeleted(userId: string): Promise<void>;
  /** Whether the reset link being sent now is an administrator's invitation (another wording). */
  isInvitation?(userId: string): boolean;
}

/** Where the console's reset page is: the link lands there when the request named no redirectTo. */
export const CONSOLE_RESET_PAGE = '/console/#/reset-password';

type AccountOptions = Pick<BetterAuthOptions, 'emailAndPassword'> & { user: NonNullable<BetterAuthOptions['user']> };

export function emailAndPasswordEnabled(config: SvcConfig): boolean {
  return config.auth.emailAndPassword?.enabled ?? true;
}

export function accountManagementOptions(
  config: SvcConfig,
  mailer: VerificationMailer,
  log: FastifyBaseLogger,
  events: AccountEvents,
): AccountOptions {
  const reset = config.auth.passwordReset ?? PASSWORD_RESET_DEFAULTS;
  // Not awaited: the request's answer must take as long whether or not the address has an account,
  // and SMTP time would tell. A failure is logged; the user can ask again.
  const sendInBackground = (to: string, url: string, kind: MailKind, userId: string): void => {
    mailer
      .send(to, url, kind)
      .catch((error: unknown) => log.error({ err: error, userId, kind }, 'could not send an account email'));
  };
  return {
    emailAndPassword: {
      enabled: emailAndPasswordEnabled(config),
      requireEmailVerification: config.auth.requireEmailVerification,
      resetPasswordTokenExpiresIn: reset.expiresIn,
      revokeSessionsOnPasswordReset: true,
      sendResetPassword: async ({ user, url }) =>
        sendInBackground(
          user.email,
          withDefaultCallback(url, config),
          events.isInvitation?.(user.id) === true ? 'invitation' : 'reset-password',
          user.id,
        ),
      onPasswordReset: async ({ user }) => {
        if (reset.revokeKeys) await events.passwordReset(user.id);
      },
    },
    user: {
      // The confirmation link goes to the new address through sendVerificationEmail; the email changes
      // only when it is followed.
      changeEmail: { enabled: true },
      deleteUser: {
        enabled: true,
        beforeDelete: async (user) => events.userDeleting(user.id),
        afterDelete: async (user) => events.userDeleted(user.id),
      },
    },
  };
}

/** The same options, but a password-less deletion mails a confirmation link instead of checking session age. */
export function deletionLinkOptions(
  options: BetterAuthOptions,
  mailer: VerificationMailer,
  log: FastifyBaseLogger,
): BetterAuthOptions {
  const deleteUser = options.user?.deleteUser;
  return {
    ...options,
    user: {
      ...options.user,
      deleteUser: {
        ...deleteUser,
        sendDeleteAccountVerification: async ({ user, url }) => {
          mailer
            .send(user.email, url, 'delete-account')
            .catch((error: unknown) =>
              log.error({ err: error, userId: user.id }, 'could not send the account deletion email'),
            );
        },
      },
    },
  };
}

/** better-auth's reset link with an empty callbackURL leads to its error page; send it to the console's page. */
function withDefaultCallback(url: string, config: SvcConfig): string {
  const link = new URL(url);
  if (link.searchParams.get('callbackURL') || config.server.console === false) return url;
  link.searchParams.set('callbackURL', CONSOLE_RESET_PAGE);
  return link.href;
}
