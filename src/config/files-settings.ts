// The `storage` and `files` settings (docs/files.md): where uploaded files are kept, and how long a
// signed download URL works. A file field's own limits (maxSize, maxCount) default to FILE_DEFAULTS.
import type { FilesConfig } from './config-types.ts';
import { deepFreeze } from '../tools/deep-freeze.ts';

/** What `files` is when the config leaves it (or any of its keys) out. */
export const FILES_DEFAULTS: Readonly<FilesConfig> = deepFreeze({ urlTtlSeconds: 300 });

/** A file field's limits when its definition leaves them out. */
/** Settings only the s3 driver takes (check-settings.ts refuses them beside `driver: local`). */
export const S3_STORAGE_SETTINGS = [
  'bucket',
  'endpoint',
  'region',
  'accessKeyId',
  'secretAccessKey',
  'forcePathStyle',
] as const;

export const FILE_DEFAULTS = deepFreeze({ maxSize: 10 * 1024 * 1024, maxCount: 10 });

export const FILES_SCHEMA = deepFreeze({
  description: 'File fields: how their download URLs are signed.',
  type: 'object',
  default: {},
  additionalProperties: false,
  properties: {
    urlTtlSeconds: {
      description:
        'How long the signed URL in a file attribute (`url`) works, in seconds; it downloads without the Authorization header.',
      type: 'integer',
      minimum: 1,
      maximum: 7 * 24 * 60 * 60,
      default: FILES_DEFAULTS.urlTtlSeconds,
    },
  },
});

const text = { type: 'string', minLength: 1 } as const;

export const STORAGE_SCHEMA = deepFreeze({
  description:
    'Where uploaded files are kept: a local folder (default `<dataDir>/files`) or an S3-compatible bucket (AWS S3, MinIO, R2, Backblaze, Garage).',
  type: 'object',
  default: { driver: 'local' },
  required: ['driver'],
  additionalProperties: false,
  properties: {
    driver: { enum: ['local', 's3'] },
    dir: { description: 'local: the folder, relative to the working directory; default `<dataDir>/files`.', ...text },
    shared: {
      description:
        'local: true when every node sees the same folder (a network share), so several nodes (redis.url set) may use it.',
      type: 'boolean',
    },
    bucket: { description: 's3: the bucket (required).', ...text },
    endpoint: { description: 's3: the S3 API URL; absent means AWS.', ...text },
    region: { description: 's3: default us-east-1.', ...text },
    accessKeyId: { description: 's3: absent means the AWS SDK finds credentials itself.', ...text },
    secretAccessKey: text,
    forcePathStyle: {
      description: 's3: address the bucket in the path (MinIO, Garage, most self-hosted stores).',
      type: 'boolean',
    },
  },
});
