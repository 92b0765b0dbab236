// The messages of emailed sign-in (auth.magicLink, auth.emailOtp): the link or the code, how long it
// lasts, and what to do if it was not asked for. Sending failures are logged, never answered: the
// answer to "send me a link" must not tell whether the address is known or the mail server is up.
import type { FastifyBaseLogger } from 'fastify';
import { escapeHtml, type VerificationMailer } from './verification-mailer.ts';

function minutes(seconds: number): string {
  const value = Math.max(1, Math.round(seconds / 60));
  return value === 1 ? '1 minute' : `${value} minutes`;
}

const NOT_YOU = 'If you did not ask for this, ignore this message.';

const OTP_PURPOSES = {
  'sign-in': { subject: 'Your sign-in code', line: 'Your sign-in code is' },
  'email-verification': { subject: 'Your email verification code', line: 'Your email verification code is' },
  'forget-password': { subject: 'Your password reset code', line: 'Your password reset code is' },
  'change-email': { subject: 'Your email change code', line: 'Your email change code is' },
} as const;

export type OtpPurpose = keyof typeof OTP_PURPOSES;

export function sendMagicLink(
  mailer: VerificationMailer,
  log: FastifyBaseLogger,
  to: string,
  url: string,
  expiresInSeconds: number,
): Promise<void> {
  const lasts = `The link works once, for ${minutes(expiresInSeconds)}.`;
  return mailer
    .deliver({
      to,
      subject: 'Your sign-in link',
      text: `Open this link to sign in:\n\n${url}\n\n${lasts} ${NOT_YOU}`,
      html: `<p>Open this link to sign in:</p><p><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p><p>${lasts} ${NOT_YOU}</p>`,
      logged: { url },
    })
    .catch((error: unknown) => log.error({ err: error }, 'could not send a sign-in link'));
}

export function sendOneTimeCode(
  mailer: VerificationMailer,
  log: FastifyBaseLogger,
  to: string,
  code: string,
  purpose: OtpPurpose,
  expiresInSeconds: number,
): Promise<void> {
  const { subject, line } = Object.hasOwn(OTP_PURPOSES, purpose) ? OTP_PURPOSES[purpose] : OTP_PURPOSES['sign-in'];
  const lasts = `It works once, for ${minutes(expiresInSeconds)}.`;
  return mailer
    .deliver({
      to,
      subject,
      text: `${line} ${code}\n\n${lasts} ${NOT_YOU}`,
      html: `<p>${line} <strong>${escapeHtml(code)}</strong></p><p>${lasts} ${NOT_YOU}</p>`,
      logged: { code },
    })
    .catch((error: unknown) => log.error({ err: error }, 'could not send a one-time code'));
}
