// Extracts the bearer secret from a request's Authorization header (or the stream's `?token=`).
import { ApiError } from '../errors/api-error.ts';
import { looksLikeJwt } from './jwt/jwt-shape.ts';

/** Visible ASCII: wider than RFC 6750's b64token so an operator's SVC_ADMIN_TOKEN may use any symbol. */
const TOKEN_PATTERN = /^[\x21-\x7E]+$/;
const MAX_TOKEN_LENGTH = 512;

export function unauthorized(detail: string): ApiError {
  return new ApiError('UNAUTHORIZED', detail, { headers: { 'WWW-Authenticate': 'Bearer' } });
}

export function parseBearerToken(authorization: string | undefined, queryToken: string | undefined): string {
  if (authorization === undefined || authorization.trim() === '') {
    if (queryToken !== undefined && queryToken !== '') return checkToken(queryToken);
    throw unauthorized('Send an API key as Authorization: Bearer <API_KEY>');
  }
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  if (!match) throw unauthorized('Malformed Authorization header: expected Bearer <API_KEY>');
  return checkToken(match[1]!);
}

function checkToken(token: string): string {
  // A JWT (an identity provider's, auth.jwt) is longer than any key; its own shape bounds it.
  if ((token.length > MAX_TOKEN_LENGTH && !looksLikeJwt(token)) || !TOKEN_PATTERN.test(token)) {
    throw unauthorized('Malformed bearer token');
  }
  return token;
}
