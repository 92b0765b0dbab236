// A file's bytes as a download: its sniffed type, length, a strong ETag (its SHA-256), one byte range,
// and headers that keep an uploaded page from acting as the site's own (nosniff, a sandboxing CSP,
// attachment unless an image or a PDF).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/api-error.ts';
import type { Readable } from 'node:stream';
import type { ByteRange } from '../../files/storage/file-storage.ts';
import { matchesWeakly, parseEntityTags } from '../documents/entity-tag.ts';
import { byteRangeOf } from './byte-range.ts';

/** Shown in the browser: images and PDFs; everything else is saved. SVG is never sniffed as an image. */
function isInline(type: string): boolean {
  return (type.startsWith('image/') && type !== 'image/svg+xml') || type === 'application/pdf';
}

/** What a download sends: a file as uploaded, or a thumbnail made of one. */
export interface ServedBytes {
  readonly name: string;
  readonly type: string;
  readonly size: number;
  /** A strong entity tag, quoted. */
  readonly tag: string;
  open(range?: ByteRange): Promise<Readable | undefined>;
}

function disposition(file: ServedBytes): string {
  const ascii = file.name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${isInline(file.type) ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.name)}`;
}

// A PDF viewer does not run in a sandboxed document; a PDF's scripts do not reach the page's origin.
const SANDBOXED = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox";
const PDF_POLICY = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; object-src 'self'";

export async function sendFile(request: FastifyRequest, reply: FastifyReply, file: ServedBytes): Promise<FastifyReply> {
  const tag = file.tag;
  reply
    .header('ETag', tag)
    .header('Accept-Ranges', 'bytes')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Security-Policy', file.type === 'application/pdf' ? PDF_POLICY : SANDBOXED)
    .header('Content-Disposition', disposition(file))
    .header('Cache-Control', 'private, no-cache');
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && matchesWeakly(parseEntityTags(ifNoneMatch), tag)) return reply.code(304).send();
  const range = byteRangeOf(request.headers.range, file.size);
  if (range.kind === 'unsatisfiable') {
    throw new ApiError('RANGE_NOT_SATISFIABLE', `The file has ${file.size} bytes`, {
      headers: { 'Content-Range': `bytes */${file.size}` },
    });
  }
  const part = range.kind === 'part' ? range.range : undefined;
  const body = await file.open(part);
  if (!body) throw new ApiError('RESOURCE_NOT_FOUND', 'The file is missing from storage');
  reply.type(file.type);
  if (part) {
    reply
      .code(206)
      .header('Content-Range', `bytes ${part.start}-${part.end}/${file.size}`)
      .header('Content-Length', String(part.end - part.start + 1));
  } else {
    reply.code(200).header('Content-Length', String(file.size));
  }
  return reply.send(body);
}
