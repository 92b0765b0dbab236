// The identity provider's JSON Web Key Set, fetched with bounds: jose caches it, fetches it again
// when a token names an unknown `kid` (at most once per cooldown), and gives up after a timeout;
// the answer's size is capped here so a hostile or broken endpoint cannot fill the memory.
import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';

export interface JwksBounds {
  /** Milliseconds a fetch of the key set may take. */
  timeoutMs: number;
  /** Largest key set accepted, in bytes. */
  maxBytes: number;
  /** How long a fetched key set is used before it is fetched again, in milliseconds. */
  cacheMaxAgeMs: number;
  /** Least time between two fetches, even for unknown `kid`s (bounds what forged tokens can cause). */
  cooldownMs: number;
}

export const JWKS_BOUNDS: JwksBounds = {
  timeoutMs: 5_000,
  maxBytes: 256 * 1024,
  cacheMaxAgeMs: 10 * 60_000,
  cooldownMs: 30_000,
};

class JwksTooLarge extends Error {}

async function readBounded(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw new JwksTooLarge(`the JSON Web Key Set is larger than ${maxBytes} bytes`);
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new JwksTooLarge(`the JSON Web Key Set is larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function boundedJwks(jwksUrl: string, bounds: JwksBounds = JWKS_BOUNDS): JWTVerifyGetKey {
  return createRemoteJWKSet(new URL(jwksUrl), {
    timeoutDuration: bounds.timeoutMs,
    cooldownDuration: bounds.cooldownMs,
    cacheMaxAge: bounds.cacheMaxAgeMs,
    [customFetch]: async (url: string, options: RequestInit) => {
      const response = await fetch(url, options);
      const text = await readBounded(response, bounds.maxBytes);
      return new Response(text, { status: response.status, headers: { 'content-type': 'application/json' } });
    },
  });
}
