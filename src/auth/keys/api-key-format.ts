// The shape of an API key: `svc_` + 32 random bytes in base64url (spec 2.1 rule 1).
import { randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'svc_';
/** Spec 2.1: `start` is the first 6 to 10 characters, enough for secret scanners to recognise a leak. */
const START_LENGTH = 10;

export interface GeneratedApiKey {
  key: string;
  prefix: string;
  start: string;
}

export function generateApiKey(): GeneratedApiKey {
  const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, prefix: API_KEY_PREFIX, start: key.slice(0, START_LENGTH) };
}

export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX) && token.length > API_KEY_PREFIX.length;
}
