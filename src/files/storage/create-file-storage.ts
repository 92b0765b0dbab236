// The storage the config names: `storage.driver` local (a folder, default `<dataDir>/files`) or s3.
import { join } from 'node:path';
import type { SvcConfig } from '../../config/config-types.ts';
import type { FileStorage } from './file-storage.ts';
import { LocalStorage } from './local-storage.ts';
import { S3Storage } from './s3-storage.ts';

export function createFileStorage(config: Pick<SvcConfig, 'storage' | 'dataDir'>): FileStorage {
  const settings = config.storage ?? { driver: 'local' };
  if (settings.driver === 's3') return new S3Storage(settings);
  return new LocalStorage(settings.dir ?? join(config.dataDir, 'files'));
}
