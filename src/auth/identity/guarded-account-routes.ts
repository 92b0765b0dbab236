// The identity component's account endpoints under svc's rules: the email/password ones answer 403
// when `auth.emailAndPassword.enabled` is off; each one that checks a password or an emailed code,
// mails a link or code, or uses a reset token goes through the login throttle; the email-OTP plugin's
// own password reset is closed (one reset flow, with its rules); and a password-less account deletion
// is handed to the instance that mails a confirmation link.
import { ApiError } from '../../errors/api-error.ts';
import type { LoginOutcome, LoginThrottle, ThrottleKind } from '../rate-limit/login-throttle.ts';
import { CLIENT_IP_HEADER } from './build-identity-options.ts';
import type { Identity } from './identity.ts';
import type { IdentityHandler } from './throttled-sign-in.ts';
import { requestBodyField } from './request-body-field.ts';

export interface GuardedAccountRoutesInput {
  /** The handler every other request goes to (sign-in is throttled there). */
  handler: IdentityHandler;
  identity: Identity;
  /** The same identity with `sendDeleteAccountVerification` set. */
  deletionLinks: Identity;
  throttle: LoginThrottle;
  basePath: string;
  emailAndPasswordEnabled: boolean;
}

/** The paths that need a password account; off with `auth.emailAndPassword.enabled`. */
const PASSWORD_PATHS = new Set([
  '/sign-up/email',
  '/sign-in/email',
  '/request-password-reset',
  '/reset-password',
  '/change-password',
]);

/**
 * The email-OTP plugin's password reset: closed, because svc has one reset flow (the mailed link) and
 * its rules (auth.emailAndPassword.enabled, the reset throttle, sessions ended, keys revoked) are
 * enforced there; a second flow would have to repeat each of them.
 */
const CLOSED_PATHS = new Set([
  '/email-otp/request-password-reset',
  '/email-otp/reset-password',
  '/forget-password/email-otp',
]);

/** The plugin endpoints that mail a sign-in link or code: limited per address as account emails are. */
const SIGN_IN_MAIL_PATHS = new Set(['/sign-in/magic-link', '/email-otp/send-verification-otp']);

/** The plugin endpoints that check an emailed code: a wrong code counts as a failed sign-in. */
const CODE_PATHS = new Set(['/sign-in/email-otp', '/email-otp/verify-email', '/email-otp/check-verification-otp']);
const WRONG_CODE = new Set(['INVALID_OTP', 'OTP_EXPIRED', 'TOO_MANY_ATTEMPTS']);

/** better-auth's code for a wrong current password (change-password, delete-user). */
const INVALID_PASSWORD = 'INVALID_PASSWORD';

async function errorCode(response: Response): Promise<string | undefined> {
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown } | null;
  return typeof body?.code === 'string' ? body.code : undefined;
}

/** A password check: right (2xx) clears the account's failures; a wrong one counts; anything else gives the count back. */
async function passwordOutcome(response: Response): Promise<LoginOutcome> {
  if (response.status < 300) return 'verified';
  return response.status === 400 && (await errorCode(response)) === INVALID_PASSWORD ? 'failed' : 'unchecked';
}

/** A link sent (2xx) stays counted, so a mailbox cannot be flooded; a refused request gives its count back. */
async function linkOutcome(response: Response): Promise<LoginOutcome> {
  return response.status < 300 ? 'failed' : 'unchecked';
}

async function codeOutcome(response: Response): Promise<LoginOutcome> {
  if (response.status < 300) return 'verified';
  const code = await errorCode(response);
  return code !== undefined && WRONG_CODE.has(code) ? 'failed' : 'unchecked';
}

export function guardAccountRoutes(input: GuardedAccountRoutesInput): IdentityHandler {
  const { handler, identity, deletionLinks, throttle, emailAndPasswordEnabled } = input;
  const base = input.basePath.replace(/\/+$/, '');

  async function run(
    request: Request,
    attempt: Promise<{ finish(outcome: LoginOutcome): Promise<void> }>,
    outcome: (response: Response) => Promise<LoginOutcome>,
    target: IdentityHandler = handler,
  ): Promise<Response> {
    const admitted = await attempt;
    let response: Response;
    try {
      response = await target(request);
    } catch (error) {
      await admitted.finish('unchecked');
      throw error;
    }
    await admitted.finish(await outcome(response));
    return response;
  }

  return async (request) => {
    const pathname = new URL(request.url).pathname.replace(/\/+$/, '');
    if (!pathname.startsWith(`${base}/`)) return handler(request);
    const path = pathname.slice(base.length);
    if (CLOSED_PATHS.has(path)) {
      throw new ApiError(
        'ROUTE_NOT_FOUND',
        `No route for ${request.method} ${pathname}: passwords are reset with ${base}/request-password-reset`,
      );
    }
    if (request.method !== 'POST') return handler(request);
    if (!emailAndPasswordEnabled && PASSWORD_PATHS.has(path)) {
      throw new ApiError(
        'EMAIL_PASSWORD_DISABLED',
        'Signing in with an email and a password is turned off here (auth.emailAndPassword.enabled); use a social or OIDC sign-in',
      );
    }
    const address = request.headers.get(CLIENT_IP_HEADER) ?? '';
    const link = (account: string | undefined, kind: Exclude<ThrottleKind, 'login'>) =>
      throttle.admitLink(account, address, kind);

    if (SIGN_IN_MAIL_PATHS.has(path) || CODE_PATHS.has(path)) {
      const email = await requestBodyField(request, 'email');
      // No email: the plugin refuses the body before anything is looked up or sent.
      if (email === undefined) return handler(request);
      if (SIGN_IN_MAIL_PATHS.has(path)) return run(request, link(email, 'sign-in'), linkOutcome);
      return run(request, throttle.admit(email, address), codeOutcome);
    }
    if (path === '/request-password-reset') {
      const email = await requestBodyField(request, 'email');
      // No email: better-auth refuses the body before anything is looked up or sent.
      if (email === undefined) return handler(request);
      return run(request, link(email, 'reset'), linkOutcome);
    }
    if (path === '/reset-password') {
      // A wrong or used token counts against the address: tokens cannot be tried in bulk.
      return run(request, link(undefined, 'reset'), async (response) =>
        response.status < 300 ? 'unchecked' : 'failed',
      );
    }
    if (path !== '/change-email' && path !== '/delete-user' && path !== '/change-password') return handler(request);

    const session = await identity.session(request.headers);
    // Not signed in: better-auth answers 401 before reading anything else.
    if (!session) return handler(request);
    if (path === '/change-email') return run(request, link(session.userId, 'change-email'), linkOutcome);
    if (path === '/change-password') return run(request, throttle.admit(session.email, address), passwordOutcome);
    // delete-user: with a password (checked under the login throttle) it deletes at once. Everything
    // else goes to the instance that mails links: there an empty password or token cannot fall through
    // to better-auth's "fresh session, no password needed" deletion.
    if (await requestBodyField(request, 'password'))
      return run(request, throttle.admit(session.email, address), passwordOutcome);
    const linkHandler: IdentityHandler = (r) => deletionLinks.handler(r);
    if (await requestBodyField(request, 'token'))
      return run(
        request,
        link(session.userId, 'delete'),
        async (r) => (r.status < 300 ? 'unchecked' : 'failed'),
        linkHandler,
      );
    return run(request, link(session.userId, 'delete'), linkOutcome, linkHandler);
  };
}
