// Values sealed at rest with AES-256-GCM under a key derived (HKDF-SHA256) from a service secret:
// `enc:v1:<iv>:<ciphertext>:<tag>`, base64url, bound to a context (e.g. the row's id) so a sealed value
// copied to another row does not open. Older secrets, given for a rotation, still open what they sealed.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

function deriveKey(secret: string, purpose: string): Buffer {
  return Buffer.from(
    hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), Buffer.from(purpose, 'utf8'), 32),
  );
}

export class SecretBox {
  readonly #current: Buffer;
  readonly #previous: readonly Buffer[];

  /** `purpose` separates the keys of different uses of one secret. */
  constructor(secret: string, purpose: string, previousSecrets: readonly string[] = []) {
    this.#current = deriveKey(secret, purpose);
    this.#previous = previousSecrets.map((previous) => deriveKey(previous, purpose));
  }

  static isSealed(value: string): boolean {
    return value.startsWith(PREFIX);
  }

  seal(plain: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#current, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${PREFIX}${iv.toString('base64url')}:${body.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}`;
  }

  /** The plain value, and whether it was sealed under the current secret; undefined when no secret opens it. */
  open(sealed: string, context: string): { plain: string; current: boolean } | undefined {
    const parts = sealed.startsWith(PREFIX) ? sealed.slice(PREFIX.length).split(':') : [];
    if (parts.length !== 3) return undefined;
    const [iv, body, tag] = parts.map((part) => Buffer.from(part!, 'base64url'));
    if (iv!.length !== IV_BYTES || tag!.length !== TAG_BYTES) return undefined;
    for (const [index, key] of [this.#current, ...this.#previous].entries()) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv!, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(tag!);
        const plain = Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8');
        return { plain, current: index === 0 };
      } catch {
        // Not this key: try the next one.
      }
    }
    return undefined;
  }
}
