// The file fields' own endpoints under /v1: GET (and HEAD) `/:resource/:id/:field[/:index]` downloads,
// PUT `/:resource/:id/:field` uploads the raw body into the field. A download is allowed with the
// caller's read permission on the row and the field (a hidden one answers 404 as a missing record
// does), with a valid signed token from the record's `url`, or by anyone for a field with protected: false.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Readable } from 'node:stream';
import type { AppContext } from '../../app-context.ts';
import { ApiError } from '../../errors/api-error.ts';
import { attributePointer } from '../server/domain-error-answer.ts';
import { fileMetadataOf, type FileMetadata } from '../../resources/field-types/file-metadata.ts';
import { isFileType, maxCountOf } from '../../resources/field-types/file-field.ts';
import type { Resource, ResourceField } from '../../resources/resource.ts';
import type { RecordValues } from '../../model/record-values.ts';
import { resolveAccess } from '../../permissions/resolve-access.ts';
import { principalOf } from '../guards/authenticate-hook.ts';
import { authorizeAction } from '../guards/authorize-action.ts';
import { requestMeta } from '../routes/request-meta.ts';
import { ifMatchOf, recordView } from '../documents/record-view.ts';
import { jsonApiAnswer } from '../documents/json-api.ts';
import { type ServedBytes, sendFile } from './send-file.ts';
import type { FileOwner } from '../../files/file-keys.ts';
import type { FileService } from '../../files/file-service.ts';
import { configuredThumb, ThumbRefusal, type ThumbSize, thumbType } from '../../files/file-thumbs.ts';
import { uploadFailure } from './upload-failure.ts';
import { resolveKeptFiles } from './kept-files.ts';

type FilesContext = Pick<AppContext, 'registry' | 'records' | 'files'>;
export type FileParams = { resource: string; id: string; related: string; index?: string };

const ADMIN = { kind: 'admin' } as const;
const DOWNLOAD_ROUTES: ReadonlySet<string> = new Set([
  '/v1/:resource/:id/:related',
  '/v1/:resource/:id/:related/:index',
]);

/** The file field a request's params name, or undefined (then `related` names a relationship). */
export function fileFieldOf(ctx: Pick<AppContext, 'registry'>, params: unknown): ResourceField | undefined {
  const { resource, related } = params as Partial<FileParams>;
  if (typeof resource !== 'string' || typeof related !== 'string') return undefined;
  const field = ctx.registry.find(resource)?.fields.get(related);
  return field && isFileType(field.definition) ? field : undefined;
}

/**
 * The /v1 authentication hook, except for a download that carries no Authorization header but a signed
 * token, or of an unprotected field: such a request has no caller, and the download decides.
 */
export function authenticateUnlessSignedDownload(
  ctx: Pick<AppContext, 'registry'>,
  authenticate: (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void,
) {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (
      (request.method === 'GET' || request.method === 'HEAD') &&
      request.headers.authorization === undefined &&
      DOWNLOAD_ROUTES.has(request.routeOptions.url ?? '')
    ) {
      const field = fileFieldOf(ctx, request.params);
      const token = (request.query as Record<string, unknown>).token;
      if (field && (typeof token === 'string' || field.definition.protected === false)) {
        done();
        return;
      }
    }
    authenticate(request, reply, done);
  };
}

/** The route's read check, left to the download for file fields (it checks the token or the caller). */
export function authorizeReadUnlessFile(ctx: Pick<AppContext, 'registry'>) {
  const authorizeRead = authorizeAction(ctx, 'read');
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (fileFieldOf(ctx, request.params)) done();
    else authorizeRead(request, reply, done);
  };
}

function missingRecord(resource: Resource, id: string): ApiError {
  return new ApiError('RESOURCE_NOT_FOUND', `No ${resource.name} record with id '${id}'`);
}

/** The file at `index` of the field's value (a `file` field has only index 0, given as no index). */
function fileAt(field: ResourceField, value: unknown, index: string | undefined): FileMetadata | undefined {
  const files = fileMetadataOf(value);
  if (index === undefined) return field.definition.type === 'file' ? files[0] : undefined;
  if (field.definition.type !== 'files' || !/^(0|[1-9][0-9]{0,5})$/.test(index)) return undefined;
  return files[Number(index)];
}

export async function downloadFile(
  ctx: FilesContext,
  request: FastifyRequest<{ Params: FileParams; Querystring: Record<string, unknown> }>,
  reply: FastifyReply,
  field: ResourceField,
): Promise<FastifyReply> {
  const { id, index } = request.params;
  const resource = ctx.registry.require(request.params.resource);
  const thumb = askedThumb(field, request.query);
  let record: RecordValues;
  if (request.principal === undefined) {
    // A signed or unprotected download: the row is read as the service, the token (if any) checked below.
    record = (await ctx.records.get(resource, { principal: ADMIN, requestId: request.id }, id)).record;
  } else {
    resolveAccess(resource, principalOf(request), 'read');
    const result = await ctx.records.get(resource, requestMeta(request), id);
    if (!result.attributes.includes(field.name)) throw missingRecord(resource, id);
    record = result.record;
  }
  const file = fileAt(field, record[field.name], index);
  if (!file) throw new ApiError('RESOURCE_NOT_FOUND', `${resource.name} '${id}' has no file there`);
  const token = request.query.token;
  if (request.principal === undefined && typeof token === 'string') {
    const check = ctx.files.signer.check(token, {
      resource: resource.name,
      recordId: id,
      field: field.name,
      fileId: file.id,
    });
    if (check !== 'valid') {
      throw new ApiError('INVALID_TOKEN', {
        detail:
          check === 'expired'
            ? 'The download link has expired; read the record again for a new one'
            : 'The download token is not valid for this file',
        parameter: 'token',
      });
    }
  }
  const owner = { resource: resource.name, recordId: id, field: field.name };
  if (thumb) return sendFile(request, reply, await thumbOf(ctx.files, owner, file, thumb));
  return sendFile(request, reply, {
    name: file.name,
    type: file.type,
    size: file.size,
    tag: `"${file.sha256}"`,
    open: (range) => ctx.files.open(owner, file, range),
  });
}

/** `?thumb=WxH`: one of the sizes the field lists, checked before anything is read. */
function askedThumb(field: ResourceField, query: Record<string, unknown>): ThumbSize | undefined {
  const asked = query.thumb;
  if (asked === undefined) return undefined;
  const size = typeof asked === 'string' ? configuredThumb(field.definition, asked) : undefined;
  if (!size) {
    const listed = field.definition.thumbs ?? [];
    throw new ApiError('INVALID_QUERY_PARAMS', {
      detail:
        listed.length > 0
          ? `'${field.name}' has thumbnails in ${listed.join(', ')} only`
          : `'${field.name}' has no thumbnails`,
      parameter: 'thumb',
    });
  }
  return size;
}

async function thumbOf(
  files: FileService,
  owner: FileOwner,
  file: FileMetadata,
  size: ThumbSize,
): Promise<ServedBytes> {
  let made: Awaited<ReturnType<FileService['thumb']>>;
  try {
    made = await files.thumb(owner, file, size);
  } catch (error) {
    if (!(error instanceof ThumbRefusal)) throw error;
    throw new ApiError('INVALID_QUERY_PARAMS', { detail: error.message, parameter: 'thumb' });
  }
  if (!made) throw new ApiError('RESOURCE_NOT_FOUND', 'The file is missing from storage');
  const dot = file.name.lastIndexOf('.');
  const base = dot > 0 ? file.name.slice(0, dot) : file.name;
  return {
    name: `${base}-${size.width}x${size.height}${thumbExtension(thumbType(file))}`,
    type: thumbType(file),
    size: made.object.size,
    // The thumbnail follows from the file's bytes and the size, so this tag changes exactly when it does.
    tag: `"${file.sha256}-${size.width}x${size.height}"`,
    open: made.open,
  };
}

function thumbExtension(type: string): string {
  return type === 'image/jpeg' ? '.jpg' : `.${type.slice('image/'.length)}`;
}

/** The file name a raw upload gives in `Content-Disposition: …; filename="…"`, if any. */
function uploadName(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(header)?.[1];
  if (encoded !== undefined) {
    try {
      return decodeURIComponent(encoded);
    } catch {
      return undefined;
    }
  }
  return /filename="?([^";]*)"?/i.exec(header)?.[1];
}

/**
 * PUT /v1/:resource/:id/:field: the body is the file (its Content-Type a hint for plain text only). A
 * `file` field's file is replaced; a `files` field gets it appended.
 */
export async function uploadIntoField(
  ctx: FilesContext,
  request: FastifyRequest<{ Params: FileParams }>,
  reply: FastifyReply,
  field: ResourceField,
) {
  const resource = ctx.registry.require(request.params.resource);
  const meta = requestMeta(request);
  const grant = resolveAccess(resource, meta.principal, 'update');
  // Before a byte is read: the caller may write this field.
  if (!grant.fields.has(field.name) || Object.hasOwn(grant.preset, field.name)) {
    throw new ApiError('INVALID_FIELDS', {
      detail: `Field '${field.name}' may not be written by this caller`,
      pointer: attributePointer(field.name),
    });
  }
  const id = request.params.id;
  let current: RecordValues | undefined;
  if (field.definition.type === 'files') {
    current = (await ctx.records.get(resource, meta, id)).record;
    const held = fileMetadataOf(current[field.name]).length;
    if (held >= maxCountOf(field.definition)) {
      throw new ApiError('INVALID_RESOURCE_DATA', {
        detail: `'${field.name}' already holds ${held} files, its most`,
        pointer: attributePointer(field.name),
      });
    }
  }
  const body = (request.body ?? request.raw) as Readable;
  const contentType = request.headers['content-type'];
  const file = await ctx.files
    .receive(field.definition, { body, name: uploadName(request.headers['content-disposition']), type: contentType })
    .catch((error: unknown) => {
      throw uploadFailure(error, field.name);
    });
  const uploads = new Map([[field.name, [file]]]);
  let result: Awaited<ReturnType<typeof ctx.records.patch>>;
  try {
    const values: Record<string, unknown> = {
      [field.name]:
        field.definition.type === 'files' ? [...fileMetadataOf(current?.[field.name]).map((f) => f.id), file] : file,
    };
    resolveKeptFiles(resource, values, current);
    result = await ctx.records.patch(resource, meta, id, values, ifMatchOf(request, resource));
  } catch (error) {
    await ctx.files.discard(uploads);
    throw error;
  }
  await ctx.files.commit(resource.name, id, uploads);
  const view = recordView(resource, result.record, result.attributes, principalOf(request));
  reply.header('ETag', view.tag);
  return jsonApiAnswer(reply, 200, view.body);
}

/**
 * PUT on `/:resource/:id/:field` in its own context: there the body of any type reaches the handler as
 * a stream, unread (elsewhere only JSON is parsed).
 */
export async function registerFileUploadRoute(
  v1: FastifyInstance,
  ctx: FilesContext,
  notFileField: (request: FastifyRequest) => ApiError,
): Promise<void> {
  await v1.register(async (uploads) => {
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    uploads.put<{ Params: FileParams }>(
      '/:resource/:id/:related',
      { onRequest: authorizeAction(ctx, 'update'), config: { requestBody: 'file-upload' } },
      async (request, reply) => {
        const field = fileFieldOf(ctx, request.params);
        if (!field) throw notFileField(request);
        return uploadIntoField(ctx, request, reply, field);
      },
    );
  });
}
