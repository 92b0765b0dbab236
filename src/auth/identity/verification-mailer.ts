// Sends email-verification links: over SMTP when `auth.email.smtpUrl` is set, otherwise into the log
// (development: the link is printed so a user can still be verified).
import type { FastifyBaseLogger } from 'fastify';
import type { SvcConfig } from '../../config/config-types.ts';
import { loadNodemailer } from '../../tools/optional-packages.ts';

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
  send(to: string, url: string): Promise<void>;
  deliver(message: MailMessage): Promise<void>;
  close(): void;
}

export function createVerificationMailer(config: SvcConfig['auth']['email'], log: FastifyBaseLogger): VerificationMailer {
  const smtpUrl = config.smtpUrl?.trim();
  if (!smtpUrl) {
    return {
      async send(to, url) {
        log.info({ to, url }, `email verification link for ${to} (no auth.email.smtpUrl configured): ${url}`);
      },
      async deliver(message) {
        log.info({ to: message.to, ...message.logged }, `${message.subject} for ${message.to} (no auth.email.smtpUrl configured)`);
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
    async deliver(message) {
      await transport.sendMail({ from: config.from, to: message.to, subject: message.subject, text: message.text, html: message.html });
    },
    close() {
      transport.close();
    },
  };
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
