// File fields in the console: how to tell one from the schema, read its value as a list, build preview
// and download addresses from the record's signed `url`, and upload with progress (docs/files.md).
import { ApiFailure, authHeaders, JSON_API, type ErrorObject } from './api.ts';
import type { FieldInfo } from './catalog.ts';

/** A file as a record reads it: metadata and where to download it. */
export interface FileValue {
  id: string;
  name: string;
  size: number;
  type: string;
  sha256: string;
  url: string;
}

export function isFileField(field: FieldInfo): boolean {
  return field.schema['x-file'] === true;
}

/** The field's files: none, one (`file`) or the list (`files`), whatever shape the value has. */
export function filesOf(value: unknown): FileValue[] {
  const list = Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];
  return list.filter(
    (f): f is FileValue => typeof f === 'object' && f !== null && typeof (f as FileValue).url === 'string',
  );
}

/** A `files` field (a list), rather than `file`. */
export function isListField(field: FieldInfo): boolean {
  const type = field.schema.type;
  return type === 'array' || (Array.isArray(type) && type.includes('array'));
}

/** The most files the field holds: 1 for `file`, the schema's maxItems for `files`. */
export function maxCountOf(field: FieldInfo): number {
  return isListField(field) ? Number(field.schema.maxItems ?? 10) : 1;
}

/** The smallest configured thumbnail size, used for previews (none: the image itself). */
export function previewThumbOf(field: FieldInfo): string | null {
  const thumbs = field.schema['x-thumbs'];
  if (!Array.isArray(thumbs) || thumbs.length === 0) return null;
  // A `0` side follows the image's ratio, so the longer given side says how big a size is.
  const side = (size: string) => Math.max(...size.split('x').map(Number));
  return [...(thumbs as string[])].sort((a, b) => side(a) - side(b))[0] ?? null;
}

/** The file's `url` with a query parameter added (it may carry `?token=` already). */
export function withParam(url: string, name: string, value: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}${name}=${encodeURIComponent(value)}`;
}

export function isPreviewable(file: FileValue): boolean {
  return file.type.startsWith('image/') && file.type !== 'image/svg+xml';
}

/**
 * PUT /v1/:resource/:id/:field with the file as the body. XMLHttpRequest rather than fetch: only it
 * reports upload progress. Resolves to the updated record document, or rejects with ApiFailure.
 */
export function uploadFile(path: string, file: File, onProgress: (fraction: number) => void): Promise<any> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('PUT', path);
    for (const [name, value] of Object.entries(authHeaders())) request.setRequestHeader(name, value);
    request.setRequestHeader('accept', JSON_API);
    request.setRequestHeader('content-type', file.type || 'application/octet-stream');
    request.setRequestHeader('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      let parsed: any = null; // a JSON:API document, or null when the answer is not JSON
      try {
        parsed = JSON.parse(request.responseText);
      } catch {
        parsed = null;
      }
      if (request.status >= 200 && request.status < 300) resolve(parsed);
      else {
        const errors: ErrorObject[] = Array.isArray(parsed?.errors)
          ? parsed.errors
          : [{ detail: `HTTP ${request.status}` }];
        reject(new ApiFailure(request.status, errors));
      }
    };
    // The server may answer 413 and close before the body is sent: the browser then reports an error.
    request.onerror = () =>
      reject(new ApiFailure(0, [{ detail: 'The upload was cut off (too large, or the network failed)' }]));
    request.send(file);
  });
}

export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * POST /v1/:resource as multipart/form-data: the attributes as form fields (strings as they are, other
 * values as JSON text, as the API reads them by the field's type) and each field's files, so the record
 * and its files are created together or not at all. Resolves to the created record's document.
 */
export async function createWithFiles(
  path: string,
  attributes: Record<string, unknown>,
  files: ReadonlyMap<string, readonly File[]>,
): Promise<any> {
  const form = new FormData();
  for (const [name, value] of Object.entries(attributes))
    form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  for (const [name, list] of files) for (const file of list) form.append(name, file, file.name);
  const response = await fetch(path, {
    method: 'POST',
    headers: { accept: JSON_API, ...authHeaders() },
    body: form,
    credentials: 'omit',
  });
  let parsed: any = null; // a JSON:API document, or null when the answer is not JSON
  try {
    parsed = JSON.parse(await response.text());
  } catch {
    parsed = null;
  }
  if (!response.ok)
    throw new ApiFailure(
      response.status,
      Array.isArray(parsed?.errors) ? parsed.errors : [{ detail: `HTTP ${response.status}` }],
    );
  return parsed;
}
