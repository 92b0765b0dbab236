// Signed download URLs: `?token=<expiry>.<signature>`, an HMAC-SHA256 (under a key derived from the
// service secret) of the record, field and file it downloads and of its expiry. Another file, a later
// upload into the field, a changed expiry or a past one does not verify.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export interface SignedFile {
  readonly resource: string;
  readonly recordId: string;
  readonly field: string;
  readonly fileId: string;
}

export type TokenCheck = 'valid' | 'invalid' | 'expired';

const PURPOSE = 'svc file download urls';
const TOKEN = /^([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/;

export class FileUrlSigner {
  readonly #key: Buffer;

  constructor(
    serviceSecret: string,
    readonly ttlSeconds: number,
  ) {
    this.#key = Buffer.from(hkdfSync('sha256', serviceSecret, Buffer.alloc(0), PURPOSE, 32));
  }

  #signature(file: SignedFile, expires: number): Buffer {
    return createHmac('sha256', this.#key)
      .update([file.resource, file.recordId, file.field, file.fileId, String(expires)].join('\n'))
      .digest();
  }

  sign(file: SignedFile, now = Date.now()): string {
    const expires = Math.floor(now / 1000) + this.ttlSeconds;
    return `${expires}.${this.#signature(file, expires).toString('base64url')}`;
  }

  check(token: string, file: SignedFile, now = Date.now()): TokenCheck {
    const parts = TOKEN.exec(token);
    if (!parts) return 'invalid';
    const expires = Number(parts[1]);
    // Compared as text: base64url has several spellings of the same bytes (the last character's unused
    // bits), and only the one this signer writes is a valid token.
    const given = Buffer.from(parts[2]!);
    const wanted = Buffer.from(this.#signature(file, expires).toString('base64url'));
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return 'invalid';
    return expires * 1000 > now ? 'valid' : 'expired';
  }
}
