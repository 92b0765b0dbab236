// What a file field holds: metadata of an uploaded file, never its bytes. Values are accepted only when
// the upload made them (or they are the record's current ones): a client cannot name an object in
// storage by writing metadata, because nothing built from a request body carries the mark.
import { isRecord } from '../../tools/is-record.ts';

export interface FileMetadata {
  /** Random and unique per upload: names the object in storage and the version a signed URL is bound to. */
  readonly id: string;
  /** The sanitised file name. */
  readonly name: string;
  readonly size: number;
  /** The media type sniffed from the bytes. */
  readonly type: string;
  /** Hex SHA-256 of the bytes. */
  readonly sha256: string;
}

const vouched = new WeakSet<object>();

/** Marks metadata as made by an upload or read from the record: a write may store it. */
export function vouchFor(metadata: FileMetadata): FileMetadata {
  vouched.add(metadata);
  return metadata;
}

export function isVouched(value: unknown): boolean {
  return typeof value === 'object' && value !== null && vouched.has(value);
}

/** The file metadata a stored value of a `file` or `files` field holds (for either type). */
export function fileMetadataOf(value: unknown): FileMetadata[] {
  const items = Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];
  return items.filter(
    (item): item is FileMetadata =>
      isRecord(item) &&
      typeof item.id === 'string' &&
      typeof item.name === 'string' &&
      typeof item.size === 'number' &&
      typeof item.type === 'string' &&
      typeof item.sha256 === 'string',
  );
}

/** A deep copy of any value that keeps the mark of the file metadata in it (a hook's copy of the values). */
export function cloneKeepingVouch<T>(value: T): T {
  const copy = structuredClone(value);
  if (isVouched(value)) vouched.add(copy as object);
  else if (Array.isArray(value) && Array.isArray(copy))
    value.forEach((item, index) => {
      if (isVouched(item)) vouched.add(copy[index] as object);
    });
  return copy;
}
