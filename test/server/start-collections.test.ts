// `svc start` runs full collections while it loads its modules and builds the app, so that the garbage
// of starting does not set the process's peak memory (tools/collect-garbage.ts). V8's trace names a
// collection asked for from JavaScript "testing"; V8's own full collections carry other reasons.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { listeningUrl, writeConfigFile } from '../helpers/svc-process.ts';

const SVC = join(import.meta.dirname, '../../bin/svc.js');

describe('svc start', () => {
  let stop = () => {};
  after(() => stop());

  it('collects the garbage of starting before it listens', async () => {
    const configFile = writeConfigFile({
      database: { url: 'sqlite::memory:' },
      resources: { notes: { fields: { text: { type: 'string' } } } },
    });
    const child = spawn(
      process.execPath,
      ['--trace-gc', SVC, 'start', '--config', configFile, '--port', '0', '--host', '127.0.0.1'],
      {
        env: { ...process.env, LOG_LEVEL: 'warn', SVC_ADMIN_TOKEN: 'svcadm_start_collections_test_token' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    stop = () => child.kill('SIGKILL');
    const output: string[] = [];
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    await listeningUrl(child, output, 'svc', stop);
    const beforeListening = output.join('').split('listening on')[0]!;
    const asked = beforeListening.split('\n').filter((line) => /Mark-Compact.*testing/.test(line));
    // One after the modules are loaded, one before the app is built and one after, at least.
    assert.ok(asked.length >= 3, `full collections asked for while starting: ${asked.length}\n${beforeListening}`);
  });
});
