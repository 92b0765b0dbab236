// Tells a JWT from an API key by its shape alone, before any lookup: three base64url segments
// (the last may be empty, as an unsigned token's is; such a token is then refused by the verifier).
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Longest JWT accepted: RSA-4096 signatures and a few dozen claims fit with room to spare. */
export const MAX_JWT_LENGTH = 8192;

export function looksLikeJwt(token: string): boolean {
  return token.length <= MAX_JWT_LENGTH && JWT_SHAPE.test(token);
}
