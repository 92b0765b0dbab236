// `svc init` as a new user meets it: a project folder with a starter config and .env.example, never a
// file overwritten, the next commands printed, and those commands working on what it wrote.
import { describe, it, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STARTER_CONFIG } from '../../src/cli/starter-config.ts';
import { STARTER_ENV_EXAMPLE } from '../../src/cli/starter-env-example.ts';

const SVC = join(import.meta.dirname, '../../bin/svc.js');
/** None of the shell's settings may leak into a command that reads its config from the folder. */
const CLEAN_ENV = {
  SVC_CONFIG: '',
  DATABASE_URL: '',
  SVC_ADMIN_TOKEN: '',
  PORT: '',
  HOST: '',
  REDIS_URL: '',
  SVC_SECRET: '',
  LOG_FORMAT: '',
  LOG_LEVEL: 'warn',
};

function svc(args: string[], cwd: string, input = '') {
  const result = spawnSync(process.execPath, [SVC, ...args], {
    encoding: 'utf8',
    cwd,
    input,
    env: { ...process.env, ...CLEAN_ENV },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('svc init', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-init-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('creates DIR, writes the starter files and prints the next commands', () => {
    const result = svc(['init', 'projects/first'], root);
    assert.equal(result.status, 0, result.stderr);
    const dir = join(root, 'projects/first');
    assert.equal(readFileSync(join(dir, 'svc.config.yaml'), 'utf8'), STARTER_CONFIG);
    assert.equal(readFileSync(join(dir, '.env.example'), 'utf8'), STARTER_ENV_EXAMPLE);
    assert.match(result.stdout, /^Wrote projects\/first\/svc\.config\.yaml and projects\/first\/\.env\.example\./);
    const commands = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('  '))
      .map((line) => line.trim().split(/\s+#/)[0]);
    assert.deepEqual(commands, [
      'cd projects/first',
      'npx svc check',
      'npx svc start',
      'npx svc users create --email you@example.com --role manager',
    ]);
  });

  it('writes into the working directory without DIR, and prints no cd', () => {
    const here = join(root, 'here');
    mkdirSync(here);
    const result = svc(['init'], here);
    assert.equal(result.status, 0, result.stderr);
    assert.ok(existsSync(join(here, 'svc.config.yaml')) && existsSync(join(here, '.env.example')));
    assert.doesNotMatch(result.stdout, /\n {2}cd /);
    assert.equal(svc(['check'], here).status, 0);
  });

  it('refuses to overwrite either file, in one line, and writes nothing', () => {
    const dir = join(root, 'taken');
    mkdirSync(dir);
    writeFileSync(join(dir, '.env.example'), 'MINE=1\n');
    const result = svc(['init', dir], root);
    assert.equal(result.status, 1);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, /^svc init: taken\/\.env\.example already exists; svc init writes nothing over a file/);
    assert.equal(readFileSync(join(dir, '.env.example'), 'utf8'), 'MINE=1\n');
    assert.equal(existsSync(join(dir, 'svc.config.yaml')), false);
    assert.equal(result.stdout, '');
  });

  it('takes one DIR at most', () => {
    const result = svc(['init', 'a', 'b'], root);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^svc init: takes one DIR, got 2/);
    assert.equal(existsSync(join(root, 'a')), false);
  });

  it('is described by svc help init and svc init --help', () => {
    const viaHelp = svc(['help', 'init'], root);
    const viaFlag = svc(['init', '--help'], root);
    assert.equal(viaHelp.status, 0);
    assert.equal(viaHelp.stdout, viaFlag.stdout);
    assert.match(viaHelp.stdout, /^Usage: svc init \[DIR\]/);
    assert.match(viaHelp.stdout, /svc\.config\.yaml and \.env\.example/);
    assert.match(svc(['help'], root).stdout, /\n {2}init +write a starter/);
  });

  it('gives a folder where the printed commands, in their order, serve the starter', async () => {
    const dir = join(root, 'served');
    assert.equal(svc(['init', dir], root).status, 0);
    assert.equal(svc(['check'], dir).status, 0);
    const child = spawn(process.execPath, [SVC, 'start', '--port', '0'], {
      cwd: dir,
      env: { ...process.env, ...CLEAN_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const base = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no "listening on" line within 60 s:\n${stdout}${stderr}`)),
          60_000,
        );
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
        child.once('exit', (code) => reject(new Error(`svc exited with ${code}:\n${stdout}${stderr}`)));
      });
      // The first start announces the generated admin token in a block that says how to choose one instead.
      assert.match(stderr, /svc generated an admin token/);
      assert.match(stderr, /SVC_ADMIN_TOKEN=/);
      const created = svc(
        ['users', 'create', '--email', 'you@example.com', '--role', 'manager', '--password-stdin'],
        dir,
        'a long enough password\n',
      );
      assert.equal(created.status, 0, created.stderr);
      const token = await fetch(`${base}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'you@example.com', password: 'a long enough password' }),
      });
      assert.equal(token.status, 201);
      const headers = {
        authorization: `Bearer ${((await token.json()) as { key: string }).key}`,
        'content-type': 'application/json',
      };
      const project = await fetch(`${base}/v1/projects`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'First' }),
      });
      assert.equal(project.status, 201, await project.clone().text());
      const projectId = ((await project.json()) as { data: { id: string } }).data.id;
      const task = await fetch(`${base}/v1/tasks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ project_id: projectId, title: 'Start' }),
      });
      assert.equal(task.status, 201, await task.clone().text());
      // Its data stays in the project folder.
      assert.ok(existsSync(join(dir, '.svc/data.db')));
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
  });
});

describe('svc start without a config', () => {
  let blocker: Server;
  let busyPort: number;
  before(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    busyPort = (blocker.address() as { port: number }).port;
  });
  after(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

  it('says in one line that it serves the bundled example and that svc init makes your own', () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-init-empty-'));
    try {
      // The port is taken, so the start ends right after saying where its config came from.
      const result = svc(['start', '--host', '127.0.0.1', '--port', String(busyPort)], empty);
      assert.equal(result.status, 1);
      const [first] = result.stderr.split('\n');
      assert.match(
        first!,
        /^No config file .*: serving the bundled example .*examples\/blog\.yaml\. Run svc init to write a config of your own\.$/,
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
