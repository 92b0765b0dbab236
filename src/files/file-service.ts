// The file fields' side of the service: receives uploads into pending keys, moves them into place when
// their record commits (or deletes them when it does not), opens files for download, signs their URLs,
// and removes the objects a committed change let go of (replaced, cleared, or their record deleted).
import type { Readable } from 'node:stream';
import type { FieldDefinition } from '../config/config-types.ts';
import type { RecordEvent } from '../model/record-event.ts';
import { cascadedFilesOf } from '../model/cascaded-files.ts';
import type { RecordValues } from '../model/record-values.ts';
import { type FileMetadata, fileMetadataOf } from '../resources/field-types/file-metadata.ts';
import type { Resource } from '../resources/resource.ts';
import { derivedPrefix, type FileOwner, fileKey, pendingKey } from './file-keys.ts';
import { ensureThumb, openThumb, type ThumbSize } from './file-thumbs.ts';
import { FileUrlSigner } from './file-url-token.ts';
import { type IncomingFile, receiveUpload } from './receive-upload.ts';
import type { ByteRange, FileStorage, StoredObject } from './storage/file-storage.ts';

export interface FileServiceOptions {
  storage: FileStorage;
  serviceSecret: string;
  urlTtlSeconds: number;
  resourceNamed: (name: string) => Resource | undefined;
  /** Where a failure to remove an object is told (the sweeper removes it later). */
  warn: (message: string, error: unknown) => void;
}

/** The file fields of a resource, in definition order. */

export class FileService {
  readonly storage: FileStorage;
  readonly signer: FileUrlSigner;
  readonly #resourceNamed: FileServiceOptions['resourceNamed'];
  readonly #warn: FileServiceOptions['warn'];

  constructor(options: FileServiceOptions) {
    this.storage = options.storage;
    this.signer = new FileUrlSigner(options.serviceSecret, options.urlTtlSeconds);
    this.#resourceNamed = options.resourceNamed;
    this.#warn = options.warn;
  }

  /** Streams an upload into a pending key; FileRefusal when it is too large or of a type not accepted. */
  receive(field: FieldDefinition, incoming: IncomingFile): Promise<FileMetadata> {
    return receiveUpload(this.storage, field, incoming);
  }

  /** After the record committed: its new files move from their pending keys into place. */
  async commit(
    resource: string,
    recordId: string,
    uploads: ReadonlyMap<string, readonly FileMetadata[]>,
  ): Promise<void> {
    for (const [field, files] of uploads)
      for (const file of files) {
        const owner = { resource, recordId, field };
        await this.storage.move(pendingKey(file.id), fileKey(owner, file)).catch((error: unknown) => {
          // The download falls back to the pending key, so the file stays reachable meanwhile.
          this.#warn(`could not move upload ${file.id} into place`, error);
        });
      }
  }

  /** After a write that failed: its uploads are removed. */
  async discard(uploads: ReadonlyMap<string, readonly FileMetadata[]>): Promise<void> {
    for (const files of uploads.values())
      for (const file of files)
        await this.storage.delete(pendingKey(file.id)).catch((error: unknown) => {
          this.#warn(`could not remove the discarded upload ${file.id}`, error);
        });
  }

  /** The file's bytes (or a range of them), or undefined when storage has no such object. */
  async open(owner: FileOwner, file: FileMetadata, range?: ByteRange): Promise<Readable | undefined> {
    // A crash between the record's commit and the move leaves the bytes at the pending key.
    return (
      (await this.storage.get(fileKey(owner, file), range)) ?? (await this.storage.get(pendingKey(file.id), range))
    );
  }

  async head(owner: FileOwner, file: FileMetadata): Promise<StoredObject | undefined> {
    return (await this.storage.head(fileKey(owner, file))) ?? (await this.storage.head(pendingKey(file.id)));
  }

  /** The thumbnail of an image in `size`, made and stored on first request; undefined without the file. */
  async thumb(
    owner: FileOwner,
    file: FileMetadata,
    size: ThumbSize,
  ): Promise<{ object: StoredObject; open: (range?: ByteRange) => Promise<Readable | undefined> } | undefined> {
    const object = await ensureThumb(this.storage, () => this.open(owner, file), owner, file, size);
    if (!object) return undefined;
    return { object, open: (range) => openThumb(this.storage, owner, file, size, range) };
  }

  /** Committed events of this process: objects their change let go of are removed. */
  async afterCommit(events: readonly RecordEvent[]): Promise<void> {
    for (const event of events) {
      // Rows a delete removed by cascade wrote no event: their files ride on the deleting record's.
      for (const removed of cascadedFilesOf(event)) {
        const owner = { resource: removed.resource, recordId: removed.recordId, field: removed.field };
        for (const file of fileMetadataOf(removed.value)) await this.#remove(owner, file);
      }
      const resource = this.#resourceNamed(event.resource);
      if (!resource) continue;
      const fields = resource.fileFields;
      if (fields.length === 0) continue;
      // A soft delete keeps the row, and with it the files, until the record is purged.
      if (event.kind === 'deleted' && resource.softDelete) continue;
      for (const field of fields) {
        const owner = { resource: resource.name, recordId: event.resourceId, field };
        for (const file of letGo(event.data.old, event.data.new, field)) await this.#remove(owner, file);
      }
    }
  }

  async #remove(owner: FileOwner, file: FileMetadata): Promise<void> {
    try {
      await this.storage.delete(fileKey(owner, file));
      await this.storage.delete(pendingKey(file.id));
      for await (const derived of this.storage.list(derivedPrefix(owner, file))) await this.storage.delete(derived.key);
    } catch (error) {
      this.#warn(`could not remove file ${file.id} of ${owner.resource}/${owner.recordId}`, error);
    }
  }

  close(): Promise<void> {
    return this.storage.close();
  }
}

/** Files the old values of `field` held that the new ones do not. */
function letGo(old: RecordValues | null, now: RecordValues | null, field: string): FileMetadata[] {
  const kept = new Set(fileMetadataOf(now?.[field]).map((file) => file.id));
  return fileMetadataOf(old?.[field]).filter((file) => !kept.has(file.id));
}
