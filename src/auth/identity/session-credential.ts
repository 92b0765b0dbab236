// The signed-in session a POST /token may carry instead of an email and password: better-auth's
// session token as a bearer token, or its session cookie sent from a trusted origin (a cookie rides
// along with any cross-site request, so without the origin check any page could mint keys).
import { ApiError } from '../../errors/api-error.ts';

export interface SessionCredential {
  authorization?: string | undefined;
  cookie?: string | undefined;
  origin?: string | undefined;
}

const BEARER = /^bearer\s+(\S+)\s*$/i;

function noSession(): ApiError {
  return new ApiError('UNAUTHORIZED', {
    detail: 'Send email and password, or a signed-in session (its cookie, or Authorization: Bearer <session token>)',
    field: 'email',
  });
}

/**
 * The headers to resolve the session from: only the one credential, so nothing else the request
 * carries is taken into account. Throws 401 without a credential, 403 for a cookie from an origin
 * that is not trusted.
 */
export function sessionHeaders(
  credential: SessionCredential,
  cookieName: string,
  isTrustedOrigin: (origin: string) => boolean,
): Headers {
  const bearer = credential.authorization === undefined ? undefined : BEARER.exec(credential.authorization)?.[1];
  if (bearer !== undefined) return new Headers({ authorization: `Bearer ${bearer}` });
  if (credential.authorization !== undefined) throw noSession();
  const cookie = credential.cookie;
  if (cookie === undefined || !cookie.split(';').some((part) => part.trim().startsWith(`${cookieName}=`)))
    throw noSession();
  if (credential.origin === undefined || !isTrustedOrigin(credential.origin)) {
    throw new ApiError('FORBIDDEN', {
      detail: 'A session cookie is accepted only from a trusted origin (the service itself or auth.trustedOrigins)',
      parameter: 'Origin',
    });
  }
  return new Headers({ cookie });
}
