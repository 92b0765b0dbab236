// Where each object lives in storage. Every part of a key is the service's own (resource and field
// names, record ids, random file ids): a client's file name never reaches a key.
import type { FileMetadata } from '../resources/field-types/file-metadata.ts';

export interface FileOwner {
  readonly resource: string;
  readonly recordId: string;
  readonly field: string;
}

/** An upload waits here until its record commits (then it is moved) or does not (then it is deleted). */
export function pendingKey(fileId: string): string {
  return `tmp/${fileId}`;
}

export function fileKey(owner: FileOwner, file: Pick<FileMetadata, 'id'>): string {
  return `${owner.resource}/${owner.recordId}/${owner.field}/${file.id}`;
}

/** Where derived objects of a file (thumbnails) go: removed with the file. */
export function derivedPrefix(owner: FileOwner, file: Pick<FileMetadata, 'id'>): string {
  return `derived/${owner.resource}/${owner.recordId}/${owner.field}/${file.id}/`;
}
