// Counts and hashes the bytes flowing to a driver, so every driver reports size and SHA-256 alike.
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import type { WrittenObject } from './file-storage.ts';

export class HashingCounter extends Transform {
  readonly #hash = createHash('sha256');
  #size = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#hash.update(chunk);
    this.#size += chunk.length;
    callback(null, chunk);
  }

  /** Valid once the stream has ended. */
  written(): WrittenObject {
    return { size: this.#size, sha256: this.#hash.digest('hex') };
  }
}
