// A real svc process killed (SIGKILL) between an upload and its record's commit: the file's bytes are in
// storage under tmp/, no record names them. `svc check-storage` reports the orphan (exit 1), leaves it
// while it is younger than --older-than, and `--repair` removes it; then storage and records agree.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SvcProcess, writeConfigFile } from '../helpers/svc-process.ts';

const SVC = join(import.meta.dirname, '../../bin/svc.js');
const PASSWORD = 'correct horse battery staple';
const ENV = { SVC_SECRET: 'crash-sweep-secret-0123456789abcdef' };
const FILE = Buffer.alloc(256 * 1024, 0x62);

function svc(args: string[]): { status: number | null; out: string } {
  const run = spawnSync(process.execPath, [SVC, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...ENV },
    timeout: 60_000,
  });
  return { status: run.status, out: run.stdout + run.stderr };
}

/** Keys under the local storage folder, partial writes included. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1));
}

describe('a process killed between an upload and its commit', { timeout: 180_000 }, () => {
  let dir: string;
  let configFile: string;
  let node: SvcProcess | undefined;
  let key: string;
  const storageDir = () => join(dir, 'files');

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-crash-sweep-'));
    configFile = writeConfigFile(
      {
        dataDir: join(dir, 'data'),
        database: { url: `sqlite:${join(dir, 'data.db')}` },
        storage: { driver: 'local', dir: join(dir, 'files') },
        server: { host: '127.0.0.1', port: 0 },
        resources: {
          docs: {
            fields: { title: { type: 'string', required: true }, attachment: { type: 'file' } },
            permissions: { editor: { read: true, create: true, update: true } },
          },
        },
      },
      dir,
    );
    const created = svc([
      'users',
      'create',
      '--config',
      configFile,
      '--email',
      'c@crash.test',
      '--password',
      PASSWORD,
      '--role',
      'editor',
    ]);
    assert.equal(created.status, 0, created.out);
    node = await SvcProcess.start(configFile, ENV);
    const token = await fetch(`${node.baseUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'c@crash.test', password: PASSWORD }),
    });
    assert.equal(token.status, 201);
    key = ((await token.json()) as { key: string }).key;
  });

  after(async () => {
    if (node && node.child.exitCode === null && node.child.signalCode === null) await node.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves an orphan under tmp/ that check-storage reports and --repair removes', async () => {
    // A committed record with its file: check-storage must keep it.
    const kept = await fetch(`${node!.baseUrl}/v1/docs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'multipart/form-data; boundary=b0' },
      body: Buffer.concat([
        Buffer.from('--b0\r\nContent-Disposition: form-data; name="title"\r\n\r\nkept\r\n'),
        Buffer.from('--b0\r\nContent-Disposition: form-data; name="attachment"; filename="k.bin"\r\n\r\n'),
        FILE,
        Buffer.from('\r\n--b0--\r\n'),
      ]),
    });
    assert.equal(kept.status, 201, await kept.clone().text());
    const keptFile = ((await kept.json()) as { data: { id: string; attributes: { attachment: { id: string } } } }).data;

    // The file part is sent whole (so it is stored under tmp/), the body is not finished: no commit yet.
    const { port } = new URL(node!.baseUrl);
    const upload = request({
      host: '127.0.0.1',
      port,
      path: '/v1/docs',
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'multipart/form-data; boundary=b1' },
    });
    upload.on('error', () => {});
    upload.write('--b1\r\nContent-Disposition: form-data; name="title"\r\n\r\nlost\r\n');
    upload.write('--b1\r\nContent-Disposition: form-data; name="attachment"; filename="lost.bin"\r\n\r\n');
    upload.write(FILE);
    upload.write('\r\n--b1\r\nContent-Disposition: form-data; name="more"\r\n\r\n');
    let pending: string[] = [];
    for (let i = 0; i < 200 && pending.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      pending = filesUnder(storageDir()).filter((file) => file.startsWith('tmp/') && !file.endsWith('.partial'));
    }
    assert.equal(pending.length, 1, `one finished upload under tmp/: ${filesUnder(storageDir()).join(', ')}`);
    node!.child.kill('SIGKILL');
    await new Promise((resolve) => node!.child.once('exit', resolve));
    upload.destroy();

    const placed = `docs/${keptFile.id}/attachment/${keptFile.attributes.attachment.id}`;
    assert.deepEqual(filesUnder(storageDir()).sort(), [placed, pending[0]].sort());

    // Younger than the default grace period: reported as clean of orphans, nothing touched.
    const young = svc(['check-storage', '--config', configFile]);
    assert.equal(young.status, 0, young.out);
    assert.match(young.out, /0 orphaned/);

    const report = svc(['check-storage', '--config', configFile, '--older-than', '0']);
    assert.equal(report.status, 1, report.out);
    assert.match(report.out, /1 orphaned/);
    assert.ok(report.out.includes(`orphan: ${pending[0]}`), report.out);
    assert.equal(filesUnder(storageDir()).length, 2, 'a report changes nothing');

    const repair = svc(['check-storage', '--config', configFile, '--older-than', '0', '--repair']);
    assert.equal(repair.status, 0, repair.out);
    assert.deepEqual(filesUnder(storageDir()), [placed]);

    const clean = svc(['check-storage', '--config', configFile, '--older-than', '0']);
    assert.equal(clean.status, 0, clean.out);
    assert.match(clean.out, /0 orphaned \(older than 0 s\), 0 not moved into place, 0 missing/);

    const refused = svc(['check-storage', '--config', configFile, '--older-than', 'soon']);
    assert.equal(refused.status, 2, refused.out);
  });
});
