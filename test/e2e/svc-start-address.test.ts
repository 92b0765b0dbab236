// Where `svc start` listens when nothing says: 127.0.0.1, so a fresh instance is not on the network; and
// what it prints, with a line of its own when HOST asks for every interface.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeConfigFile } from '../helpers/svc-process.ts';

const SVC = join(import.meta.dirname, '../../bin/svc.js');
const CLEAN_ENV = {
  SVC_CONFIG: '',
  DATABASE_URL: '',
  PORT: '',
  HOST: '',
  REDIS_URL: '',
  SVC_SECRET: '',
  LOG_LEVEL: 'warn',
};

/** An IPv4 address of this machine that is not loopback, when it has one. */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry !== undefined && entry.family === 'IPv4' && !entry.internal)?.address;

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function start(dir: string, env: Record<string, string>): Promise<{ child: ChildProcess; lines: string[] }> {
  // No server.host in the file: the default (or HOST) decides.
  const file = writeConfigFile(
    {
      database: { url: `sqlite:${join(dir, 'data.db')}` },
      dataDir: join(dir, '.svc'),
      adminToken: 'address-test-admin-token-0123456789',
      resources: { notes: { fields: { title: { type: 'string' } } } },
    },
    dir,
  );
  const child = spawn(process.execPath, [SVC, 'start', '--config', file, '--port', '0'], {
    env: { ...process.env, ...CLEAN_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "listening on" line within 60 s:\n${stdout}${stderr}`)),
      60_000,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // Both lines are written at once, so the first complete line means the whole block is in.
      if (/listening on \S+\n/.test(stdout)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`svc exited with ${code}:\n${stdout}${stderr}`)));
  });
  return { child, lines: stdout.trimEnd().split('\n') };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGKILL');
  await once(child, 'exit');
}

describe('svc start: the address', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-address-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('listens on 127.0.0.1 by default, says so, and is not reachable from another interface', async () => {
    const dir = mkdtempSync(join(root, 'default-'));
    const { child, lines } = await start(dir, {});
    try {
      assert.equal(lines.length, 1, lines.join('\n'));
      const match = /^listening on http:\/\/127\.0\.0\.1:(\d+)$/.exec(lines[0]!);
      assert.ok(match, lines[0]);
      const port = Number(match[1]);
      assert.equal(await reachable('127.0.0.1', port), true);
      if (outside !== undefined) assert.equal(await reachable(outside, port), false, `reachable at ${outside}:${port}`);
    } finally {
      await stop(child);
    }
  });

  it('with HOST=0.0.0.0 listens on every interface and says so in one line of its own', async () => {
    const dir = mkdtempSync(join(root, 'every-'));
    const { child, lines } = await start(dir, { HOST: '0.0.0.0' });
    try {
      assert.equal(lines.length, 2, lines.join('\n'));
      const match = /^listening on http:\/\/0\.0\.0\.0:(\d+)$/.exec(lines[0]!);
      assert.ok(match, lines[0]);
      assert.match(lines[1]!, /^listening on every interface \(0\.0\.0\.0\): reachable from other machines/);
      if (outside !== undefined) assert.equal(await reachable(outside, Number(match[1])), true);
    } finally {
      await stop(child);
    }
  });

  it('writes an IPv6 address in brackets', async () => {
    const dir = mkdtempSync(join(root, 'ipv6-'));
    const { child, lines } = await start(dir, { HOST: '::1' });
    try {
      assert.match(lines[0]!, /^listening on http:\/\/\[::1\]:\d+$/);
      assert.equal(lines.length, 1);
    } finally {
      await stop(child);
    }
  });
});
