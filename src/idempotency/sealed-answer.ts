// POST /token's answer holds a new key's secret, which svc otherwise never stores. For a retry it is
// kept sealed (AES-256-GCM) with a key derived from the password the request sent (scrypt, with a
// salt of its own): only a caller who sends the same credentials again can open it, and the database
// holds neither the secret nor anything that checks a guessed password faster than scrypt.
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';

const VERSION = 'v1';
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

function deriveKey(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, 32, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** `context` (the caller and the request's fingerprint) is bound to the seal: it opens for that request only. */
export async function seal(plain: string, password: string, context: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', await deriveKey(password, salt), iv);
  cipher.setAAD(Buffer.from(context));
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${VERSION}.${Buffer.concat([salt, iv, cipher.getAuthTag(), data]).toString('base64url')}`;
}

/** The plain answer, or undefined when the password or context is not the one it was sealed with. */
export async function unseal(sealed: string, password: string, context: string): Promise<string | undefined> {
  const [version, packed] = sealed.split('.');
  if (version !== VERSION || packed === undefined) return undefined;
  const bytes = Buffer.from(packed, 'base64url');
  if (bytes.length < SALT_BYTES + IV_BYTES + TAG_BYTES) return undefined;
  const salt = bytes.subarray(0, SALT_BYTES);
  const iv = bytes.subarray(SALT_BYTES, SALT_BYTES + IV_BYTES);
  const tag = bytes.subarray(SALT_BYTES + IV_BYTES, SALT_BYTES + IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', await deriveKey(password, salt), iv);
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([
      decipher.update(bytes.subarray(SALT_BYTES + IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    return undefined;
  }
}
