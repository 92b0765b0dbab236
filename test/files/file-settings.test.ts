// The storage settings and file field definitions svc refuses, with their paths, and the local
// driver's refusal of a key that would leave its folder.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { validateConfig } from '../../src/resources/config-loader.ts';
import { LocalStorage } from '../../src/files/storage/local-storage.ts';
import { sanitizeFileName } from '../../src/files/file-name.ts';
import { byteRangeOf } from '../../src/http/files/byte-range.ts';

const withFiles = (extra: Record<string, unknown>) => ({
  database: { url: 'sqlite::memory:' },
  resources: {
    docs: { fields: { title: { type: 'string' }, scan: { type: 'file' } }, permissions: {} },
  },
  ...extra,
});

const problemsOf = (config: Record<string, unknown>) =>
  validateConfig(config).problems.map((problem) => `${problem.path}: ${problem.message}`);

describe('storage settings', () => {
  it('refuses a local folder with redis.url (several nodes) unless it is shared', () => {
    assert.match(
      problemsOf(withFiles({ redis: { url: 'redis://127.0.0.1:6379' } })).join('\n'),
      /^storage.driver: local keeps files on this node only/m,
    );
    assert.deepEqual(
      problemsOf(withFiles({ redis: { url: 'redis://127.0.0.1:6379' }, storage: { driver: 'local', shared: true } })),
      [],
    );
    assert.deepEqual(
      problemsOf(withFiles({ redis: { url: 'redis://127.0.0.1:6379' }, storage: { driver: 's3', bucket: 'b' } })),
      [],
    );
  });

  it('lets a service without file fields use redis with the default storage', () => {
    const config = withFiles({ redis: { url: 'redis://127.0.0.1:6379' } });
    (config.resources as Record<string, unknown>).docs = { fields: { title: { type: 'string' } }, permissions: {} };
    assert.deepEqual(problemsOf(config), []);
  });

  it('needs a bucket with s3, and refuses s3 settings beside driver local', () => {
    assert.deepEqual(problemsOf(withFiles({ storage: { driver: 's3' } })), [
      'storage.bucket: is required with driver s3',
    ]);
    assert.deepEqual(problemsOf(withFiles({ storage: { driver: 'local', bucket: 'b' } })), [
      'storage.bucket: is an s3 setting; set storage.driver: s3 to use it',
    ]);
  });

  it('refuses a default, unique, or an attribute of another type on a file field', () => {
    const config = withFiles({});
    (config.resources as Record<string, any>).docs.fields.scan = {
      type: 'file',
      default: 'x',
      unique: true,
      maxCount: 2,
      maxLength: 3,
    };
    const problems = problemsOf(config).join('\n');
    assert.match(problems, /fields.scan.default: file fields take no default/);
    assert.match(problems, /fields.scan.unique: file fields cannot be unique/);
    assert.match(problems, /fields.scan.maxCount: maxCount does not apply to file fields/);
    assert.match(problems, /fields.scan.maxLength: maxLength does not apply to file fields/);
  });
});

describe('the local driver', () => {
  it('refuses a key that leaves its folder', async () => {
    const storage = new LocalStorage(mkdtempSync(join(tmpdir(), 'svc-local-')));
    await assert.rejects(
      storage.put('../outside', Readable.from([Buffer.from('x')]), 'text/plain'),
      /escapes the folder/,
    );
    await assert.rejects(storage.get('a/../../outside'), /escapes the folder/);
  });
});

describe('file names and ranges', () => {
  for (const [raw, safe] of [
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\x\\evil.exe', 'evil.exe'],
    ['..', 'file'],
    ['a"b<c>.png', 'a_b_c_.png'],
    ['\u202egnp.exe', '_gnp.exe'],
    [undefined, 'file'],
  ] as const) {
    it(`sanitises ${JSON.stringify(raw)} to ${safe}`, () => assert.equal(sanitizeFileName(raw), safe));
  }
  it('keeps a long name under 200 characters with its extension', () => {
    const name = sanitizeFileName(`${'a'.repeat(500)}.png`);
    assert.equal(name.length, 200);
    assert.ok(name.endsWith('.png'));
  });
  it('reads one byte range and serves anything else whole', () => {
    assert.deepEqual(byteRangeOf('bytes=0-9', 100), { kind: 'part', range: { start: 0, end: 9 } });
    assert.deepEqual(byteRangeOf('bytes=90-', 100), { kind: 'part', range: { start: 90, end: 99 } });
    assert.deepEqual(byteRangeOf('bytes=-5', 100), { kind: 'part', range: { start: 95, end: 99 } });
    assert.deepEqual(byteRangeOf('bytes=0-999', 100), { kind: 'part', range: { start: 0, end: 99 } });
    assert.deepEqual(byteRangeOf('bytes=100-', 100), { kind: 'unsatisfiable' });
    assert.deepEqual(byteRangeOf('bytes=0-1,5-6', 100), { kind: 'whole' });
    assert.deepEqual(byteRangeOf('items=0-1', 100), { kind: 'whole' });
  });
});
