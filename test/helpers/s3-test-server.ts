// A real S3 HTTP API on 127.0.0.1 (s3rver, files in a temporary folder) with one bucket, for the s3 driver.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver';
import type { StorageConfig } from '../../src/config/config-types.ts';

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  close(): Promise<void>;
}

export async function startS3TestServer(bucket = 'svc-files'): Promise<S3TestServer> {
  const directory = mkdtempSync(join(tmpdir(), 'svc-s3-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const address = (await server.run()) as { address: string; port: number };
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    bucket,
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The storage settings that point svc's s3 driver at a test server. */
export function s3StorageOf(server: S3TestServer): StorageConfig {
  return {
    driver: 's3',
    bucket: server.bucket,
    endpoint: server.endpoint,
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
  };
}
