// Where file bytes are kept: one interface, two drivers (local-storage.ts, s3-storage.ts). Keys are
// `/`-separated paths the service builds itself (file-keys.ts), never a client's file name.
import type { Readable } from 'node:stream';

export interface StoredObject {
  readonly key: string;
  readonly size: number;
  readonly modifiedAt: Date;
}

/** Bytes `start` to `end` inclusive, as an HTTP Range names them. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

export interface WrittenObject {
  readonly size: number;
  /** Hex SHA-256 of the bytes written. */
  readonly sha256: string;
}

export interface FileStorage {
  /** Writes the stream under `key`, replacing what was there; a failed stream leaves nothing behind. */
  put(key: string, body: Readable, contentType: string): Promise<WrittenObject>;
  /** The object's bytes (or `range` of them), or undefined when there is no such object. */
  get(key: string, range?: ByteRange): Promise<Readable | undefined>;
  head(key: string): Promise<StoredObject | undefined>;
  /** Moves an object to another key (a copy then a delete where the store has no rename). */
  move(from: string, to: string): Promise<void>;
  /** Removes the object; no object is no error. */
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix`, in pages the driver chooses. */
  list(prefix: string): AsyncIterable<StoredObject>;
  /**
   * Removes what writes cut short by a crash left, last changed before `before` (the local driver's
   * `*.partial` files, which `list` does not show); answers how many. S3 keeps no partial objects.
   */
  removeStaleWrites?(before: Date): Promise<number>;
  close(): Promise<void>;
}
