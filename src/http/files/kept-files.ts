// A write may name files the record already has, by id or by echoing their metadata back (clients
// that send a record as they read it): such references become the record's own metadata, which a
// write may store. Anything else stays as sent, and validation refuses it (only an upload makes a file).
import type { RecordValues } from '../../model/record-values.ts';
import { isFileType } from '../../resources/field-types/file-field.ts';
import { type FileMetadata, fileMetadataOf, isVouched, vouchFor } from '../../resources/field-types/file-metadata.ts';
import type { Resource } from '../../resources/resource.ts';
import { isRecord } from '../../tools/is-record.ts';

function referencedId(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (isRecord(value) && typeof value.id === 'string') return value.id;
  return undefined;
}

/** Whether `body` names any file it did not upload: then the record's current files are needed. */
export function namesKeptFiles(resource: Resource, body: Record<string, unknown>): boolean {
  return [...resource.fields.values()].some((field) => {
    if (!isFileType(field.definition) || !Object.hasOwn(body, field.name)) return false;
    const value = body[field.name];
    const items = Array.isArray(value) ? value : value === null ? [] : [value];
    return items.some((item) => !isVouched(item));
  });
}

function resolve(item: unknown, current: readonly FileMetadata[]): unknown {
  if (isVouched(item)) return item;
  const id = referencedId(item);
  const file = id === undefined ? undefined : current.find((candidate) => candidate.id === id);
  return file
    ? vouchFor({ id: file.id, name: file.name, size: file.size, type: file.type, sha256: file.sha256 })
    : item;
}

/** Replaces references to the record's current files in `body` (changed in place) by their metadata. */
export function resolveKeptFiles(
  resource: Resource,
  body: Record<string, unknown>,
  current: RecordValues | undefined,
): void {
  for (const field of resource.fields.values()) {
    if (!isFileType(field.definition) || !Object.hasOwn(body, field.name)) continue;
    const value = body[field.name];
    if (value === null) continue;
    const files = fileMetadataOf(current?.[field.name]);
    body[field.name] = Array.isArray(value) ? value.map((item) => resolve(item, files)) : resolve(value, files);
  }
}
