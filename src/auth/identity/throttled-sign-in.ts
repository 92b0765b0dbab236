// The identity component's email sign-in under the login throttle: the email is read from the body
// as better-auth reads it (JSON, or a form's last `email`), and better-auth's answer tells how the
// password check went.
import type { LoginOutcome, LoginThrottle } from '../rate-limit/login-throttle.ts';
import { CLIENT_IP_HEADER } from './build-identity-options.ts';
import { requestBodyField } from './request-body-field.ts';

export type IdentityHandler = (request: Request) => Promise<Response>;

async function outcomeOf(response: Response): Promise<LoginOutcome> {
  if (response.status < 300) return 'verified';
  if (response.status === 401) return 'failed';
  if (response.status === 403) {
    // Told only after the password matched; any other 403 (origin, CSRF) comes before the check.
    const body = (await response
      .clone()
      .json()
      .catch(() => null)) as { code?: unknown } | null;
    if (body?.code === 'EMAIL_NOT_VERIFIED') return 'verified';
  }
  return 'unchecked';
}

export function throttleSignIn(handler: IdentityHandler, throttle: LoginThrottle, basePath: string): IdentityHandler {
  const signInPath = `${basePath.replace(/\/+$/, '')}/sign-in/email`;
  return async (request) => {
    if (request.method !== 'POST' || new URL(request.url).pathname.replace(/\/+$/, '') !== signInPath)
      return handler(request);
    const email = await requestBodyField(request, 'email');
    // No email, no account to guess at: better-auth refuses the body before any password check.
    if (email === undefined) return handler(request);
    const attempt = await throttle.admit(email, request.headers.get(CLIENT_IP_HEADER) ?? '');
    let response: Response;
    try {
      response = await handler(request);
    } catch (error) {
      await attempt.finish('unchecked');
      throw error;
    }
    await attempt.finish(await outcomeOf(response));
    return response;
  };
}
