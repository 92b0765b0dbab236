// The S3 driver: any S3-compatible API (AWS, MinIO, R2, Backblaze, Garage). Uploads stream through the
// SDK's multipart Upload, so a large file is sent in parts and never held whole in memory.
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import type { StorageConfig } from '../../config/config-types.ts';
import type { ByteRange, FileStorage, StoredObject, WrittenObject } from './file-storage.ts';
import { HashingCounter } from './hashing-counter.ts';

/** Parts of 5 MiB (S3's smallest), up to 2 at once: at most ~10 MiB of an upload is in memory. */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

function isMissing(error: unknown): boolean {
  if (!(error instanceof S3ServiceException)) return false;
  return error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404;
}

export class S3Storage implements FileStorage {
  readonly #client: S3Client;
  readonly #bucket: string;

  constructor(settings: StorageConfig) {
    if (settings.bucket === undefined) throw new Error('storage.bucket is required with driver s3');
    this.#bucket = settings.bucket;
    this.#client = new S3Client({
      region: settings.region ?? 'us-east-1',
      forcePathStyle: settings.forcePathStyle === true,
      ...(settings.endpoint !== undefined ? { endpoint: settings.endpoint } : {}),
      ...(settings.accessKeyId !== undefined && settings.secretAccessKey !== undefined
        ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
        : {}),
    });
  }

  async put(key: string, body: Readable, contentType: string): Promise<WrittenObject> {
    const counter = new HashingCounter();
    body.once('error', (error) => counter.destroy(error));
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.#bucket, Key: key, Body: body.pipe(counter), ContentType: contentType },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      // A failed upload aborts its multipart upload: no parts are left behind.
      leavePartsOnError: false,
    });
    await upload.done();
    return counter.written();
  }

  async get(key: string, range?: ByteRange): Promise<Readable | undefined> {
    try {
      const answer = await this.#client.send(
        new GetObjectCommand({
          Bucket: this.#bucket,
          Key: key,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      return answer.Body as Readable | undefined;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async head(key: string): Promise<StoredObject | undefined> {
    try {
      const answer = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }));
      return { key, size: answer.ContentLength ?? 0, modifiedAt: answer.LastModified ?? new Date(0) };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async move(from: string, to: string): Promise<void> {
    await this.#client.send(
      new CopyObjectCommand({
        Bucket: this.#bucket,
        Key: to,
        CopySource: `${this.#bucket}/${from.split('/').map(encodeURIComponent).join('/')}`,
      }),
    );
    await this.delete(from);
  }

  async delete(key: string): Promise<void> {
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    for await (const page of paginateListObjectsV2(
      { client: this.#client },
      { Bucket: this.#bucket, Prefix: prefix },
    )) {
      for (const item of page.Contents ?? []) {
        if (item.Key === undefined) continue;
        yield { key: item.Key, size: item.Size ?? 0, modifiedAt: item.LastModified ?? new Date(0) };
      }
    }
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }
}
