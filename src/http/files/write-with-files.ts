// POST, PUT and PATCH of a record with its files: a multipart/form-data body's uploads stream to pending
// keys before the write, move into place after it commits, and are removed when it fails; a JSON body
// may keep, reorder or clear the record's current files (kept-files.ts).
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import type { Action } from '../../config/config-types.ts';
import type { RecordValues } from '../../model/record-values.ts';
import { resolveAccess } from '../../permissions/resolve-access.ts';
import type { Resource } from '../../resources/resource.ts';
import { isRecord } from '../../tools/is-record.ts';
import { principalOf } from '../guards/authenticate-hook.ts';
import { writeWithBody } from '../documents/request-document.ts';
import { requestMeta } from '../routes/request-meta.ts';
import { namesKeptFiles, resolveKeptFiles } from './kept-files.ts';
import { readMultipartBody } from './multipart-body.ts';

type FileWriteContext = Pick<AppContext, 'records' | 'files'>;

/** The record's current values as the caller reads them, for the files a write keeps. */
async function currentValues(
  ctx: FileWriteContext,
  request: FastifyRequest,
  resource: Resource,
  id: string | undefined,
): Promise<RecordValues | undefined> {
  if (id === undefined) return undefined;
  return (await ctx.records.get(resource, requestMeta(request), id)).record;
}

export async function writeWithFiles<T extends { record: RecordValues }>(
  ctx: FileWriteContext,
  request: FastifyRequest,
  target: { resource: Resource; urlId: string | undefined; action: Action },
  write: (body: unknown, clientId: string | undefined) => Promise<T>,
): Promise<T> {
  const { resource, urlId } = target;
  if (!request.isMultipart()) {
    return writeWithBody(request, target, async (body, clientId) => {
      if (isRecord(body) && namesKeptFiles(resource, body))
        resolveKeptFiles(resource, body, await currentValues(ctx, request, resource, urlId));
      return write(body, clientId);
    });
  }
  const grant = resolveAccess(resource, principalOf(request), target.action);
  const { values, uploads } = await readMultipartBody(request, ctx.files, resource, grant);
  let result: T;
  try {
    if (namesKeptFiles(resource, values))
      resolveKeptFiles(resource, values, await currentValues(ctx, request, resource, urlId));
    result = await write(values, undefined);
  } catch (error) {
    await ctx.files.discard(uploads);
    throw error;
  }
  await ctx.files.commit(resource.name, String(result.record.id), uploads);
  return result;
}
