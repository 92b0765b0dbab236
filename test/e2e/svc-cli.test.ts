// The `svc` command as a person meets it: --version and help, each command taking only its own options,
// one clear line and a non-zero exit for a busy port or an unreachable database, and a password read
// from standard input rather than from the command line.
import { describe, it, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeConfigFile } from '../helpers/svc-process.ts';

const SVC = join(import.meta.dirname, '../../bin/svc.js');
const VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string }
).version;

function svc(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  const result = spawnSync(process.execPath, [SVC, ...args], {
    encoding: 'utf8',
    input: options.input ?? '',
    cwd: options.cwd,
    env: { ...process.env, LOG_LEVEL: 'warn', ...options.env },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('svc, the command', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  const configFile = writeConfigFile(
    {
      database: { url: `sqlite:${join(dir, 'data.db')}` },
      adminToken: 'cli-test-admin-token-0123456789abcdef',
      resources: { notes: { fields: { text: { type: 'text' } }, permissions: { editor: { read: true } } } },
    },
    dir,
  );
  let blocker: Server;
  let busyPort: number;

  before(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    busyPort = (blocker.address() as { port: number }).port;
  });
  after(async () => {
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints its version', () => {
    const result = svc(['--version']);
    assert.equal(result.status, 0);
    assert.equal(result.stdout.trim(), `svc ${VERSION}`);
  });

  it('lists the commands, and describes one with help COMMAND or COMMAND --help', () => {
    const overview = svc(['help']);
    assert.equal(overview.status, 0);
    for (const name of ['start', 'plan', 'check', 'openapi', 'users create', 'admin-token'])
      assert.match(overview.stdout, new RegExp(`\\n  ${name} `));
    const viaHelp = svc(['help', 'users', 'create']);
    const viaFlag = svc(['users', 'create', '--help']);
    assert.equal(viaHelp.status, 0);
    assert.equal(viaHelp.stdout, viaFlag.stdout);
    assert.match(viaHelp.stdout, /--password-stdin/);
  });

  it('refuses an option of another command with one line naming it, and exit 2', () => {
    const result = svc(['start', '--rotate']);
    assert.equal(result.status, 2);
    assert.equal(result.stderr.trim().split('\n').length, 1);
    assert.match(result.stderr, /^svc start: unknown option '--rotate'/);
    assert.equal(svc(['check', '--yaml', '--config', configFile]).status, 2);
  });

  it('refuses an unknown command with exit 2', () => {
    const result = svc(['serve']);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /unknown command 'serve'/);
  });

  it('says in one line that the port is taken, without a stack, and exits 1', () => {
    const result = svc(['start', '--config', configFile, '--host', '127.0.0.1', '--port', String(busyPort)]);
    assert.equal(result.status, 1);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, new RegExp(`^svc start: 127\\.0\\.0\\.1:${busyPort} is already in use`));
    assert.doesNotMatch(result.stderr, /\n\s+at /);
  });

  it('says in one line that the database cannot be reached, and exits 1', () => {
    const result = svc(['start', '--config', configFile, '--port', '0'], {
      env: { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', SVC_SECRET: 'cli-test-secret-0123456789abcdef0123' },
    });
    assert.equal(result.status, 1);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, /could not reach the database/);
  });

  it('says in one line that it serves the bundled example when no config file is found', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-cli-empty-'));
    try {
      // The port is taken, so the start ends right after saying where its config came from.
      const result = svc(['start', '--host', '127.0.0.1', '--port', String(busyPort)], {
        cwd: empty,
        env: { SVC_CONFIG: '' },
      });
      assert.equal(result.status, 1);
      assert.match(
        result.stderr,
        /^No config file \(--config, SVC_CONFIG or \.\/svc\.config\.yaml\): serving the bundled example .*examples\/blog\.yaml\./,
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('creates a user with the password read from standard input', () => {
    const created = svc(
      [
        'users',
        'create',
        '--config',
        configFile,
        '--email',
        'cli@example.test',
        '--role',
        'editor',
        '--password-stdin',
      ],
      {
        input: 'a password from stdin\n',
      },
    );
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stdout, /created user .* <cli@example\.test> with role editor/);
  });

  it('asks for the password it was not given, and without a terminal says how to give it', () => {
    const result = svc(['users', 'create', '--config', configFile, '--email', 'nobody@example.test']);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /--password-stdin/);
  });
});
