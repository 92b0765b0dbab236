// Sends the identity component's mail (verification, reset and deletion links; sign-in links and codes): over
// SMTP when `auth.email.smtpUrl` is set, otherwise into the log (development: the link is printed so
// a user can still follow it).
import type { FastifyBaseLogger } from 'fastify';
import type { SvcConfig } from '../../config/config-types.ts';
import { loadNodemailer } from '../../tools/optional-packages.ts';

/** Which message a link goes out in. */
export type MailKind = 'verify-email' | 'reset-password' | 'invitation' | 'delete-account';

interface MailText {
  subject: string;
  lead: string;
  ignore: string;
  /** Log message prefix when no SMTP server is configured. */
  logLabel: string;
}

const MESSAGES: ReadonlyMap<MailKind, MailText> = new Map<MailKind, MailText>([
  [
    'verify-email',
    {
      subject: 'Verify your email address',
      lead: 'Open this link to verify your email address:',
      ignore: 'If you did not ask for this, ignore this message.',
      logLabel: 'email verification link',
    },
  ],
  [
    'reset-password',
    {
      subject: 'Reset your password',
      lead: 'Open this link to choose a new password (it works once, and expires):',
      ignore: 'If you did not ask for a new password, ignore this message: your password stays as it is.',
      logLabel: 'password reset link',
    },
  ],
  [
    // The same single-use reset link, for an account an administrator made without a password.
    'invitation',
    {
      subject: 'Your account is ready: choose a password',
      lead: 'An account was made for you. Open this link to choose your password (it works once, and expires):',
      ignore:
        'If you did not expect this, ignore this message: nobody can sign in with a password until one is chosen.',
      logLabel: 'invitation link',
    },
  ],
  [
    'delete-account',
    {
      subject: 'Confirm deleting your account',
      lead: 'Open this link to delete your account and every API key it holds:',
      ignore: 'If you did not ask for this, ignore this message: nothing is deleted.',
      logLabel: 'account deletion link',
    },
  ],
]);

/** Any other message of the identity component (sign-in links and codes). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** What the log shows in place of sending when no SMTP server is configured (the link or code). */
  logged: Record<string, string>;
}

export interface VerificationMailer {
  send(to: string, url: string, kind?: MailKind): Promise<void>;
  deliver(message: MailMessage): Promise<void>;
  /** Tells a registered address's owner that someone tried to sign up with it (the sign-up itself answers as for a new one). */
  sendSignUpAttempt(to: string): Promise<void>;
  close(): void;
}

const SIGN_UP_ATTEMPT_TEXT =
  'Someone tried to create an account with this email address, which already has one. No new account was created ' +
  'and yours is unchanged.\n\nIf it was you, sign in instead (or reset your password if you forgot it). If it was not, you can ignore this message.';

export function createVerificationMailer(
  config: SvcConfig['auth']['email'],
  log: FastifyBaseLogger,
): VerificationMailer {
  const smtpUrl = config.smtpUrl?.trim();
  if (!smtpUrl) {
    return {
      async send(to, url, kind = 'verify-email') {
        const label = MESSAGES.get(kind)!.logLabel;
        log.info({ to, url, kind }, `${label} for ${to} (no auth.email.smtpUrl configured): ${url}`);
      },
      async deliver(message) {
        log.info(
          { to: message.to, ...message.logged },
          `${message.subject} for ${message.to} (no auth.email.smtpUrl configured)`,
        );
      },
      async sendSignUpAttempt(to) {
        log.info(
          { to },
          `someone tried to sign up again with the registered address ${to} (no auth.email.smtpUrl configured, so it was not told)`,
        );
      },
      close() {},
    };
  }
  const transport = loadNodemailer().createTransport(smtpUrl);
  return {
    async send(to, url, kind = 'verify-email') {
      const message = MESSAGES.get(kind)!;
      await transport.sendMail({
        from: config.from,
        to,
        subject: message.subject,
        text: `${message.lead}\n\n${url}\n\n${message.ignore}`,
        html: `<p>${message.lead}</p><p><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p><p>${message.ignore}</p>`,
      });
    },
    async deliver(message) {
      await transport.sendMail({
        from: config.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
    },
    async sendSignUpAttempt(to) {
      await transport.sendMail({
        from: config.from,
        to,
        subject: 'Someone tried to sign up with your email address',
        text: SIGN_UP_ATTEMPT_TEXT,
        html: `<p>${escapeHtml(SIGN_UP_ATTEMPT_TEXT).replace(/\n\n/g, '</p><p>')}</p>`,
      });
    },
    close() {
      transport.close();
    },
  };
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
