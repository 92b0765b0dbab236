// A write sent as multipart/form-data: form fields are the record's attributes (JSON-typed fields given
// as JSON text), file parts are uploads into the file fields. Each file part's field is checked before
// a byte of it is read (a field the caller may not write refuses the request); its bytes stream to
// storage. A text part under a `files` field keeps a current file by its id, in the list's order.
import type { FastifyRequest } from 'fastify';
import type { Multipart } from '@fastify/multipart';
import { ApiError } from '../../errors/api-error.ts';
import { attributePointer } from '../server/domain-error-answer.ts';
import type { FileService } from '../../files/file-service.ts';
import type { FileMetadata } from '../../resources/field-types/file-metadata.ts';
import { isFileType, maxCountOf } from '../../resources/field-types/file-field.ts';
import type { Resource, ResourceField } from '../../resources/resource.ts';
import type { AccessGrant } from '../../model/access-grant.ts';
import { uploadFailure } from './upload-failure.ts';

/** Field types whose form values are the text itself; every other type's value is JSON text. */
const TEXT_TYPES: ReadonlySet<string> = new Set([
  'string',
  'text',
  'email',
  'url',
  'uuid',
  'enum',
  'date',
  'datetime',
  'relation',
]);

export interface MultipartBody {
  /** The flat body: attributes, with each file field's uploads and kept ids in order. */
  values: Record<string, unknown>;
  /** What this request uploaded, by field: moved into place after the commit, removed otherwise. */
  uploads: Map<string, FileMetadata[]>;
}

function formValue(field: ResourceField, text: string): unknown {
  if (TEXT_TYPES.has(field.definition.type)) return text;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError('INVALID_RESOURCE_DATA', {
      detail: `'${field.name}' must be JSON in a form field (a ${field.definition.type})`,
      pointer: attributePointer(field.name),
    });
  }
}

function fieldOf(resource: Resource, name: string): ResourceField {
  const field = resource.fields.get(name);
  if (!field) {
    throw new ApiError('INVALID_RESOURCE_DATA', {
      detail: `${resource.name} has no field '${name}'`,
      pointer: attributePointer(name),
    });
  }
  return field;
}

function mayWrite(grant: AccessGrant, name: string): void {
  if (!grant.fields.has(name) || Object.hasOwn(grant.preset, name)) {
    throw new ApiError('INVALID_FIELDS', {
      detail: `Field '${name}' may not be written by this caller`,
      pointer: attributePointer(name),
    });
  }
}

/** The value a file field's text part stands for: for `file` empty text clears it, else it names a kept file. */
function fileText(field: ResourceField, text: string): string | null {
  return field.definition.type === 'file' && (text === '' || text === 'null') ? null : text;
}

export async function readMultipartBody(
  request: FastifyRequest,
  files: FileService,
  resource: Resource,
  grant: AccessGrant,
): Promise<MultipartBody> {
  const values: Record<string, unknown> = {};
  const uploads = new Map<string, FileMetadata[]>();
  const fileItems = new Map<string, unknown[]>();
  const add = (field: ResourceField, item: unknown): void => {
    const items = fileItems.get(field.name) ?? [];
    items.push(item);
    fileItems.set(field.name, items);
    const most = field.definition.type === 'file' ? 1 : maxCountOf(field.definition);
    if (items.length > most) {
      throw new ApiError('INVALID_RESOURCE_DATA', {
        detail: `'${field.name}' holds at most ${most} file${most === 1 ? '' : 's'}`,
        pointer: attributePointer(field.name),
      });
    }
  };
  try {
    for await (const part of request.parts() as AsyncIterable<Multipart>) {
      const field = fieldOf(resource, part.fieldname);
      if (part.type === 'file') {
        if (!isFileType(field.definition)) {
          throw new ApiError('INVALID_RESOURCE_DATA', {
            detail: `'${field.name}' is not a file field; send its value as a form field`,
            pointer: attributePointer(field.name),
          });
        }
        // Before reading the bytes: the caller may write this field, and the list has room.
        mayWrite(grant, field.name);
        add(field, undefined);
        const file = await files
          .receive(field.definition, { body: part.file, name: part.filename, type: part.mimetype })
          .catch((error: unknown) => {
            throw uploadFailure(error, field.name);
          });
        const list = uploads.get(field.name) ?? [];
        list.push(file);
        uploads.set(field.name, list);
        const items = fileItems.get(field.name) as unknown[];
        items[items.length - 1] = file;
      } else {
        const text = typeof part.value === 'string' ? part.value : String(part.value);
        if (isFileType(field.definition)) add(field, fileText(field, text));
        else values[field.name] = formValue(field, text);
      }
    }
  } catch (error) {
    await files.discard(uploads);
    throw multipartLimit(error);
  }
  for (const [name, items] of fileItems) {
    const field = resource.fields.get(name) as ResourceField;
    values[name] = field.definition.type === 'file' ? (items[0] ?? null) : items.filter((item) => item !== null);
  }
  return { values, uploads };
}

/** Busboy's and the plugin's own refusals (limits, a malformed body, a `__proto__` part) as the 4xx they are. */
function multipartLimit(error: unknown): unknown {
  if (error instanceof ApiError || !(error instanceof Error)) return error;
  const code = (error as { code?: string }).code ?? '';
  if (code.startsWith('FST_') && /LIMIT/.test(code)) return new ApiError('PAYLOAD_TOO_LARGE', error.message);
  if (code === 'FST_PROTO_VIOLATION')
    return new ApiError('INVALID_RESOURCE_DATA', {
      detail: 'A part named __proto__ is not accepted',
      pointer: attributePointer('__proto__'),
    });
  if (code.startsWith('FST_') || /Unexpected end of (form|multipart)|Malformed|boundary/i.test(error.message))
    return new ApiError('BAD_REQUEST', 'The multipart/form-data body is malformed');
  return error;
}
