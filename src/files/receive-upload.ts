// One upload, streamed: the first bytes are sniffed for the type (refused unless the field accepts it),
// the size is counted as the bytes pass (refused past maxSize, the partial object removed), and the
// bytes go to storage under a pending key with their SHA-256 computed on the way.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FieldDefinition } from '../config/config-types.ts';
import { maxSizeOf } from '../resources/field-types/file-field.ts';
import { type FileMetadata, vouchFor } from '../resources/field-types/file-metadata.ts';
import { FileRefusal } from './file-refusal.ts';
import { pendingKey } from './file-keys.ts';
import { sanitizeFileName } from './file-name.ts';
import { isAccepted, SNIFF_BYTES, sniffType } from './sniff-type.ts';
import type { FileStorage } from './storage/file-storage.ts';
import { collectYoungGarbage } from '../tools/collect-garbage.ts';

export interface IncomingFile {
  readonly body: AsyncIterable<Buffer>;
  /** The name the client gave, if any. */
  readonly name: string | undefined;
  /** The Content-Type the client gave: a hint for plain text only. */
  readonly type: string | undefined;
}

/** How many bytes pass between two minor collections (tools/collect-garbage.ts says why). */
const COLLECT_EVERY_BYTES = 8 * 1024 * 1024;

async function* sizeLimited(body: AsyncIterable<Buffer>, maxSize: number): AsyncGenerator<Buffer> {
  let size = 0;
  let sinceCollect = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxSize) throw new FileRefusal('too-large', `the file is larger than ${maxSize} bytes`);
    sinceCollect += chunk.length;
    if (sinceCollect >= COLLECT_EVERY_BYTES) {
      sinceCollect = 0;
      collectYoungGarbage();
    }
    yield chunk;
  }
}

export async function receiveUpload(
  storage: FileStorage,
  field: FieldDefinition,
  incoming: IncomingFile,
): Promise<FileMetadata> {
  const chunks = sizeLimited(incoming.body, maxSizeOf(field))[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headSize = 0;
  let ended = false;
  while (headSize < SNIFF_BYTES) {
    const next = await chunks.next();
    if (next.done) {
      ended = true;
      break;
    }
    head.push(next.value);
    headSize += next.value.length;
  }
  const sample = Buffer.concat(head);
  const type = await sniffType(sample, incoming.type);
  if (!isAccepted(type, field.accept))
    throw new FileRefusal('type-not-accepted', `the file is ${type}, which is not one of ${field.accept?.join(', ')}`);
  async function* whole(): AsyncGenerator<Buffer> {
    yield sample;
    if (ended) return;
    for (;;) {
      const next = await chunks.next();
      if (next.done) return;
      yield next.value;
    }
  }
  const id = randomUUID();
  const written = await storage.put(pendingKey(id), Readable.from(whole(), { objectMode: false }), type);
  return vouchFor({ id, name: sanitizeFileName(incoming.name), size: written.size, type, sha256: written.sha256 });
}
