// Rules on the service settings that JSON Schema cannot say well: URL shapes that would otherwise
// fail late (a database URL of an unknown kind) or silently (a CORS origin with a trailing slash).
import { isRecord } from '../tools/is-record.ts';
import type { ConfigProblem } from './config-problem.ts';
import { S3_STORAGE_SETTINGS } from './files-settings.ts';

const DATABASE_URL = /^(sqlite:|postgres(ql)?:\/\/)/;
// The Origin header is scheme://host[:port]: nothing else ever matches it.
const ORIGIN = /^https?:\/\/[^/?#\s]+$/;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export function checkSettings(config: Record<string, unknown>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const { database, server, auth } = config;
  problems.push(...storageProblems(config));
  if (
    isRecord(database) &&
    typeof database.url === 'string' &&
    database.url !== '' &&
    !DATABASE_URL.test(database.url)
  ) {
    problems.push({ path: 'database.url', message: 'must be sqlite:PATH or postgres://…' });
  }
  if (isRecord(server) && isRecord(server.cors) && Array.isArray(server.cors.origins)) {
    server.cors.origins.forEach((origin, i) => {
      if (typeof origin === 'string' && origin !== '*' && !ORIGIN.test(origin)) {
        problems.push({
          path: `server.cors.origins.${i}`,
          message: 'must be "*" or an origin: scheme://host[:port], without path or trailing slash',
        });
      }
    });
  }
  if (isRecord(auth) && typeof auth.baseUrl === 'string' && auth.baseUrl !== '' && !isHttpUrl(auth.baseUrl)) {
    problems.push({ path: 'auth.baseUrl', message: 'must be an http(s) URL' });
  }
  return problems;
}

/**
 * A local folder serves one node: with redis.url set (several nodes), each would keep its own files and
 * answer 404 for the others', so that needs `shared: true` (a folder every node mounts) or s3.
 */
function storageProblems(config: Record<string, unknown>): ConfigProblem[] {
  const { storage, redis } = config;
  const driver = isRecord(storage) ? storage.driver : 'local';
  if (driver === 's3' && isRecord(storage) && storage.bucket === undefined)
    return [{ path: 'storage.bucket', message: 'is required with driver s3' }];
  if (driver !== 'local') return [];
  const problems: ConfigProblem[] = [];
  if (isRecord(storage)) {
    for (const setting of S3_STORAGE_SETTINGS)
      if (Object.hasOwn(storage, setting))
        problems.push({ path: `storage.${setting}`, message: 'is an s3 setting; set storage.driver: s3 to use it' });
  }
  const severalNodes = isRecord(redis) && typeof redis.url === 'string' && redis.url !== '';
  // A service without file fields keeps no files, wherever storage points.
  if (!hasFileFields(config.resources)) return problems;
  if (severalNodes && !(isRecord(storage) && storage.shared === true)) {
    problems.push({
      path: 'storage.driver',
      message:
        'local keeps files on this node only, but redis.url says several nodes run: use driver s3, or shared: true when every node mounts the same folder',
    });
  }
  return problems;
}

function hasFileFields(resources: unknown): boolean {
  if (!isRecord(resources)) return false;
  return Object.values(resources).some(
    (resource) =>
      isRecord(resource) &&
      isRecord(resource.fields) &&
      Object.values(resource.fields).some(
        (field) => isRecord(field) && (field.type === 'file' || field.type === 'files'),
      ),
  );
}
