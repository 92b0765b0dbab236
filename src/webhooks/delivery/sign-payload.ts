// Standard Webhooks signing (https://www.standardwebhooks.com): secrets `whsec_<base64>` and the
// `webhook-signature` value `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`.
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** 32 random bytes: inside the 24..64 bytes the Standard Webhooks specification asks for. */
const SECRET_BYTES = 32;

export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

const keys = new Map<string, Buffer>();
/** Distinct secrets whose keys are kept; past it the memo starts over. */
const MAX_KEYS = 1000;

/** The HMAC key: the base64-decoded bytes after the `whsec_` prefix, decoded once per secret (every delivery signs). */
function secretKey(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
    if (keys.size >= MAX_KEYS) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/** The `webhook-signature` header value for one message. */
export function signPayload(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret))
    .update(`${messageId}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}
