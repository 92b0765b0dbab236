// A 200 MB upload through a real `svc start` process keeps that process's resident memory growth under
// 50 MB: the bytes stream from the socket through the sniffer, the size check and the hash to storage,
// never held whole. Both ways in are measured (a raw PUT into the field and a multipart POST), with
// the child's RSS read from /proc every 50 ms while the bytes flow; the whole test is bounded in time.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { SvcProcess, writeConfigFile } from '../helpers/svc-process.ts';

const SVC = join(import.meta.dirname, '../../bin/svc.js');
const SKIP = process.platform !== 'linux' ? 'reads the child process RSS from /proc' : false;
const UPLOAD_BYTES = 200 * 1024 * 1024;
const MAX_RSS_GROWTH = 50 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x61);
const PASSWORD = 'correct horse battery staple';
// The child runs without V8's coverage collection even under `npm test`'s c8: its block counters and
// the coverage it keeps for every function grow the heap by tens of MB, which is the measuring tool's
// memory, not the upload's. The upload path's coverage comes from the other file tests.
const ENV = { SVC_SECRET: 'upload-memory-secret-0123456789abcdef', NODE_V8_COVERAGE: undefined };

function rssOf(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(line, 'VmRSS in /proc status');
  return Number(line[1]) * 1024;
}

/** `total` bytes in 64 KiB chunks, produced as the socket drains: the test itself holds none of it. */
function generated(prefix: Buffer, total: number, suffix: Buffer): Readable {
  let sent = 0;
  let stage = 0;
  return new Readable({
    read() {
      if (stage === 0) {
        stage = 1;
        this.push(prefix);
      } else if (sent < total) {
        const chunk = total - sent >= CHUNK.length ? CHUNK : CHUNK.subarray(0, total - sent);
        sent += chunk.length;
        this.push(chunk);
      } else if (stage === 1) {
        stage = 2;
        this.push(suffix);
      } else this.push(null);
    },
  });
}

/** Sends the body while sampling the child's RSS; resolves with the answer and the peak RSS. */
function send(
  baseUrl: string,
  pid: number,
  options: { method: string; path: string; headers: Record<string, string> },
  body: Readable,
): Promise<{ status: number; text: string; peak: number }> {
  let peak = rssOf(pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 50);
  return new Promise((resolve, reject) => {
    const url = new URL(options.path, baseUrl);
    const req = request(
      { host: '127.0.0.1', port: url.port, path: url.pathname, method: options.method, headers: options.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          clearInterval(sampler);
          peak = Math.max(peak, rssOf(pid));
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), peak });
        });
      },
    );
    req.on('error', (error) => {
      clearInterval(sampler);
      reject(error);
    });
    body.pipe(req);
  });
}

describe('a 200 MB upload keeps the process RSS growth under 50 MB', { skip: SKIP, timeout: 240_000 }, () => {
  let dir: string;
  let node: SvcProcess;
  let key: string;
  let recordId: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-upload-memory-'));
    const configFile = writeConfigFile(
      {
        dataDir: join(dir, 'data'),
        database: { url: `sqlite:${join(dir, 'data.db')}` },
        server: { host: '127.0.0.1', port: 0 },
        resources: {
          blobs: {
            fields: {
              title: { type: 'string', required: true },
              data: { type: 'file', maxSize: 300 * 1024 * 1024 },
            },
            permissions: { editor: { read: true, create: true, update: true } },
          },
        },
      },
      dir,
    );
    const args = ['users', 'create', '--config', configFile, '--email', 'm@memory.test', '--password', PASSWORD];
    const created = spawnSync(process.execPath, [SVC, ...args, '--role', 'editor'], {
      encoding: 'utf8',
      env: { ...process.env, ...ENV },
      timeout: 60_000,
    });
    assert.equal(created.status, 0, created.stderr + created.stdout);
    node = await SvcProcess.start(configFile, ENV);
    const token = await fetch(`${node.baseUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'm@memory.test', password: PASSWORD }),
    });
    assert.equal(token.status, 201);
    key = ((await token.json()) as { key: string }).key;
    const record = await fetch(`${node.baseUrl}/v1/blobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.api+json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ data: { type: 'blobs', attributes: { title: 'warm-up' } } }),
    });
    const recordText = await record.text();
    assert.equal(record.status, 201, recordText);
    recordId = (JSON.parse(recordText) as { data: { id: string } }).data.id;
    // A small upload first: what the first upload loads (the multipart parser, the sniffer) is not growth.
    const small = await send(
      node.baseUrl,
      node.child.pid!,
      {
        method: 'PUT',
        path: `/v1/blobs/${recordId}/data`,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
      },
      generated(Buffer.alloc(0), 1024 * 1024, Buffer.alloc(0)),
    );
    assert.equal(small.status, 200, small.text);
  });

  after(async () => {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('streams a raw PUT of 200 MB to storage', async () => {
    const pid = node.child.pid!;
    const before = rssOf(pid);
    const answer = await send(
      node.baseUrl,
      pid,
      {
        method: 'PUT',
        path: `/v1/blobs/${recordId}/data`,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/octet-stream',
          'content-length': String(UPLOAD_BYTES),
        },
      },
      generated(Buffer.alloc(0), UPLOAD_BYTES, Buffer.alloc(0)),
    );
    assert.equal(answer.status, 200, answer.text);
    const data = (JSON.parse(answer.text) as { data: { attributes: { data: { size: number } } } }).data.attributes;
    assert.equal(data.data.size, UPLOAD_BYTES);
    const growth = answer.peak - before;
    process.stdout.write(`# raw PUT: RSS growth ${(growth / 1048576).toFixed(1)} MB\n`);
    assert.ok(growth < MAX_RSS_GROWTH, `RSS grew ${growth} bytes`);
  });

  it('streams a multipart POST with a 200 MB file to storage', async () => {
    const pid = node.child.pid!;
    const boundary = '----svc-memory-boundary';
    const prefix = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nbig\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="data"; filename="big.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    const suffix = Buffer.from(`\r\n--${boundary}--\r\n`);
    const before = rssOf(pid);
    const answer = await send(
      node.baseUrl,
      pid,
      {
        method: 'POST',
        path: '/v1/blobs',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(prefix.length + UPLOAD_BYTES + suffix.length),
        },
      },
      generated(prefix, UPLOAD_BYTES, suffix),
    );
    assert.equal(answer.status, 201, answer.text);
    const data = (JSON.parse(answer.text) as { data: { attributes: { data: { size: number } } } }).data.attributes;
    assert.equal(data.data.size, UPLOAD_BYTES);
    const growth = answer.peak - before;
    process.stdout.write(`# multipart POST: RSS growth ${(growth / 1048576).toFixed(1)} MB\n`);
    assert.ok(growth < MAX_RSS_GROWTH, `RSS grew ${growth} bytes`);
  });
});
