// What `svc start` writes to its standard output as a person or a log collector reads it: readable lines
// with LOG_FORMAT=pretty (what a terminal gets), one JSON object per line with LOG_FORMAT=json.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SvcProcess, writeConfigFile } from '../helpers/svc-process.ts';

const SVC = join(import.meta.dirname, '../../bin/svc.js');

describe('svc start log format', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-log-format-'));
  const configFile = writeConfigFile(
    {
      database: { url: `sqlite:${join(dir, 'data.db')}` },
      adminToken: 'log-format-admin-token-0123456789abcdef',
      resources: { notes: { fields: { text: { type: 'text' } }, permissions: { user: { read: true } } } },
    },
    dir,
  );
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Starts svc, makes one request, stops it; returns the lines it printed. */
  async function linesOf(logFormat: string): Promise<string[]> {
    const svc = await SvcProcess.start(configFile, { LOG_FORMAT: logFormat });
    try {
      assert.equal((await fetch(`${svc.baseUrl}/healthz`)).status, 200);
      await svc.waitForOutput(/request completed/);
    } finally {
      await svc.stop();
    }
    return svc.output.split('\n').filter((line) => line.trim() !== '');
  }

  it('writes readable lines, not JSON, with LOG_FORMAT=pretty', async () => {
    const lines = await linesOf('pretty');
    const request = lines.find((line) => line.includes('request completed'));
    assert.ok(request, lines.join('\n'));
    assert.match(request, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request completed: GET \/healthz 200 [\d.]+ ms/);
    assert.throws(() => JSON.parse(request) as unknown);
    assert.ok(
      lines.some((line) => /INFO: Server listening at http:\/\/127\.0\.0\.1:\d+/.test(line)),
      lines.join('\n'),
    );
    // The shutdown line is written before the process exits: the formatter runs in the process, synchronously.
    assert.ok(
      lines.some((line) => /INFO: shutting down/.test(line)),
      lines.join('\n'),
    );
  });

  it('writes one JSON object per line with LOG_FORMAT=json', async () => {
    const lines = await linesOf('json').then((all) => all.filter((line) => !line.startsWith('listening on ')));
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const request = records.find((record) => record.msg === 'request completed');
    assert.ok(request, lines.join('\n'));
    assert.equal(request.path, '/healthz');
    assert.equal(request.status, 200);
  });

  it('refuses an unknown LOG_FORMAT in one line', () => {
    const result = spawnSync(
      process.execPath,
      [SVC, 'start', '--config', configFile, '--port', '0', '--host', '127.0.0.1'],
      {
        encoding: 'utf8',
        env: { ...process.env, LOG_FORMAT: 'xml' },
        timeout: 60_000,
      },
    );
    assert.equal(result.status, 1);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, /^svc start: LOG_FORMAT must be json or pretty/);
  });
});
