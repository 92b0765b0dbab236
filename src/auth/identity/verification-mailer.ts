// Sends email-verification links: over SMTP when `auth.email.smtpUrl` is set, otherwise into the log
// (development: the link is printed so a user can still be verified).
import type { FastifyBaseLogger } from 'fastify';
import type { SvcConfig } from '../../config/config-types.ts';
import { loadNodemailer } from '../../tools/optional-packages.ts';

export interface VerificationMailer {
  send(to: string, url: string): Promise<void>;
  /** Tells a registered address's owner that someone tried to sign up with it (the sign-up itself answers as for a new one). */
  sendSignUpAttempt(to: string): Promise<void>;
  close(): void;
}

const SIGN_UP_ATTEMPT_TEXT =
  'Someone tried to create an account with this email address, which already has one. No new account was created ' +
  'and yours is unchanged.\n\nIf it was you, sign in instead (or reset your password if you forgot it). If it was not, you can ignore this message.';

export function createVerificationMailer(config: SvcConfig['auth']['email'], log: FastifyBaseLogger): VerificationMailer {
  const smtpUrl = config.smtpUrl?.trim();
  if (!smtpUrl) {
    return {
      async send(to, url) {
        log.info({ to, url }, `email verification link for ${to} (no auth.email.smtpUrl configured): ${url}`);
      },
      async sendSignUpAttempt(to) {
        log.info({ to }, `someone tried to sign up again with the registered address ${to} (no auth.email.smtpUrl configured, so it was not told)`);
      },
      close() {},
    };
  }
  const transport = loadNodemailer().createTransport(smtpUrl);
  return {
    async send(to, url) {
      await transport.sendMail({
        from: config.from,
        to,
        subject: 'Verify your email address',
        text: `Open this link to verify your email address:\n\n${url}\n\nIf you did not sign up, ignore this message.`,
        html: `<p>Open this link to verify your email address:</p><p><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>` +
          '<p>If you did not sign up, ignore this message.</p>',
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

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
