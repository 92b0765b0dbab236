// SHA-256 of a bearer secret: the only form in which API keys and admin tokens are stored or compared.
import crypto, { createHash, timingSafeEqual } from 'node:crypto';

// One-shot hashing (Node >= 20.12) skips the Hash object: measurably cheaper on every keyed request.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

export function hashToken(token: string): string {
  return oneShot ? oneShot('sha256', token, 'hex') : createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests (equal length by construction: both are SHA-256). */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
