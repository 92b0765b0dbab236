// The package is the product: `npm pack` the project, `npm install` the tarball into an empty folder as
// a user would, and run `npx svc start` there on SQLite until /healthz answers, then stop it with
// SIGTERM; then run the hooks example (examples/hooks-app) against the installed package, its own tests
// and a type check of the package's declarations. Slow by nature (an install of ~130 packages, and better-sqlite3 compiles from source when no
// prebuilt binary is at hand: 1-2 minutes, more on a busy machine), so it is one test with a generous
// timeout, and scripts/run-tests.mjs starts it first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { listeningUrl } from '../helpers/svc-process.ts';
import { EXTERNAL } from '../../scripts/bundle-externals.mjs';

const ROOT = join(import.meta.dirname, '../..');
const TEST_TIMEOUT_MS = 10 * 60_000;
const STOP_TIMEOUT_MS = 20_000;
/** Top-level folders of a working tree that are never part of the package's inputs. */
const NOT_COPIED = new Set(['node_modules', 'dist', 'coverage', '.git', '.svc']);
/** Externals that are not dependencies: the optional Node-API driver, and pg's optional peer. */
const OPTIONAL_EXTERNAL = new Set(['better-sqlite3-napi', 'pg-native']);

/**
 * The environment of a user's shell, not of this test run: no coverage collection (c8 would record every
 * npm and node-gyp process), no test-only settings and none of the npm script variables of `npm test`.
 */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const dropped = new Set([
    'NODE_V8_COVERAGE',
    'NODE_ENV',
    'SVC_TEST_RUNNER',
    'SVC_CONFIG',
    'SVC_ADMIN_TOKEN',
    'DATABASE_URL',
    'REDIS_URL',
    'PORT',
    'HOST',
  ]);
  for (const [name, value] of Object.entries(process.env)) {
    if (dropped.has(name) || (name.startsWith('npm_') && !name.startsWith('npm_config_'))) continue;
    env[name] = value;
  }
  return env;
}

/** Runs a command to its end; resolves with its standard output, rejects with its output when it fails. */
async function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return (await runWithOutput(command, args, cwd, env)).stdout;
}

/** Runs a command to its end; resolves with both its outputs, rejects with them when it fails. */
function runWithOutput(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...userEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve({ stdout, stderr });
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${stdout}\n${stderr}`));
    });
  });
}

/**
 * `npm pack` in a copy of the working tree: packing runs the build (`prepack`), which rewrites dist/, and
 * other test files run the working tree's dist/ at the same time.
 */
async function packProject(workDir: string): Promise<{ tarball: string; files: string[] }> {
  const copy = join(workDir, 'project');
  cpSync(ROOT, copy, {
    recursive: true,
    filter: (source) => !NOT_COPIED.has(relative(ROOT, source).split(sep)[0]!),
  });
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(copy, 'node_modules'), 'dir');
  const stdout = await run('npm', ['pack', '--pack-destination', workDir, '--json'], copy);
  const [result] = JSON.parse(stdout.slice(stdout.search(/^\[/m))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  return { tarball: join(workDir, result!.filename), files: result!.files.map((file) => file.path) };
}

/**
 * better-sqlite3 installs through prebuild-install, which takes a prebuilt binary (downloaded, or from a
 * local folder) and compiles only when it finds none. This machine has one: the project's own, if it
 * was built for the Node running this test. It is offered under the exact name prebuild-install looks
 * for (package version, Node ABI, platform, architecture), so another version or Node finds nothing and
 * compiles, and prebuild-install loads the binary before accepting it, compiling when that fails. The
 * install then follows the path of a user whose install can download the prebuilt binary.
 */
async function localPrebuildEnv(dir: string): Promise<NodeJS.ProcessEnv> {
  const driver = join(realpathSync(join(ROOT, 'node_modules')), 'better-sqlite3');
  try {
    process.dlopen({ exports: {} }, join(driver, 'build/Release/better_sqlite3.node'));
  } catch {
    return {}; // built for another Node (or not built): the install compiles its own
  }
  const { version } = JSON.parse(readFileSync(join(driver, 'package.json'), 'utf8')) as { version: string };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  mkdirSync(dir);
  await run('tar', ['-czf', join(dir, name), '-C', driver, 'build/Release/better_sqlite3.node'], driver);
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}

/** Starts `npx svc start` in `dir` on a free port; resolves with the process and its base URL. */
async function startInstalledSvc(dir: string, output: string[]): Promise<{ child: ChildProcess; base: string }> {
  // Its own process group, so a failed run can be cleaned up with everything npx started.
  const child = spawn('npx', ['svc', 'start', '--port', '0', '--host', '127.0.0.1'], {
    cwd: dir,
    env: { ...userEnv(), LOG_FORMAT: 'json', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const base = await listeningUrl(child, output, 'npx svc start');
  return { child, base };
}

test('the packed tarball installs into an empty folder and `npx svc start` serves from it', {
  timeout: TEST_TIMEOUT_MS,
}, async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'svc-package-'));
  let svc: ChildProcess | undefined;
  try {
    const { tarball, files } = await packProject(workDir);
    const sources = files.filter(
      (path) =>
        /^(src|test|bench|scripts|console|coverage)\//.test(path) || (path.endsWith('.ts') && !path.endsWith('.d.ts')),
    );
    assert.deepEqual(sources, [], 'the package holds no sources, tests, bench or build scripts');
    for (const expected of [
      'bin/svc.js',
      'dist/bundle/cli.mjs',
      'dist/console/index.html',
      'dist/console/docs/scalar.js',
      'examples/blog.yaml',
      'schema/svc.config.schema.json',
      'README.md',
      'LICENSE',
      'CHANGELOG.md',
      'docs/configuration.md',
      'docs/images/console-records.png',
      'dist/bundle/index.mjs',
      'dist/types/index.d.ts',
      'examples/hooks-app/svc.hooks.mjs',
    ]) {
      assert.ok(files.includes(expected), `the package holds ${expected}`);
    }

    const consumer = join(workDir, 'consumer');
    mkdirSync(consumer);
    // What README's install section asks of a user: npm's install-script policy must allow better-sqlite3's build.
    writeFileSync(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'svc-install-check', private: true, allowScripts: { 'better-sqlite3': true } }),
    );
    const prebuilds = await localPrebuildEnv(join(workDir, 'prebuilds'));
    const install = await runWithOutput(
      'npm',
      ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'],
      consumer,
      prebuilds,
    );
    const installOutput = install.stdout + install.stderr;
    // A clean install (issue #41): no engine warning on the oldest supported Node, and svc itself lists
    // no script for the user to approve (npm 11 names a package with `prepare` among install scripts).
    assert.doesNotMatch(installOutput, /EBADENGINE/, installOutput);
    assert.doesNotMatch(installOutput, /svc@[^ ]* \(/, installOutput);
    const installed = JSON.parse(readFileSync(join(consumer, 'node_modules/svc/package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
      dependencies?: Record<string, string>;
    };
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare'])
      assert.equal(installed.scripts?.[hook], undefined, `the packed package.json has no ${hook} script`);
    // The pure JavaScript dependencies are in the bundle: only what it leaves outside is installed.
    assert.deepEqual(
      Object.keys(installed.dependencies ?? {}).sort(),
      EXTERNAL.filter((name) => !OPTIONAL_EXTERNAL.has(name)).sort(),
    );

    const output: string[] = [];
    const started = await startInstalledSvc(consumer, output);
    svc = started.child;
    const health = await fetch(`${started.base}/healthz`);
    assert.equal(health.status, 200, await health.text());
    const consolePage = await fetch(`${started.base}/console/`);
    assert.equal(consolePage.status, 200, 'the built console is in the package');

    // npx does not pass SIGTERM on: it goes to the node process, whose pid is in every JSON log line.
    const pid = Number(/"pid":(\d+)/.exec(output.join(''))?.[1]);
    assert.ok(pid > 0, `a JSON log line with the pid:\n${output.join('')}`);
    const exited = new Promise<number | null>((resolve) => svc!.once('exit', (code) => resolve(code)));
    process.kill(pid, 'SIGTERM');
    const code = await Promise.race([
      exited,
      new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS).unref()),
    ]);
    assert.equal(code, 0, `svc stops cleanly on SIGTERM:\n${output.join('')}`);

    // The example resolves 'svc' from the consumer's node_modules above it: the same installed tarball.
    const example = join(consumer, 'hooks-app');
    cpSync(join(ROOT, 'examples/hooks-app'), example, {
      recursive: true,
      filter: (source) => !/node_modules|\.svc/.test(relative(ROOT, source)),
    });
    await run('npm', ['test'], example);
    // The declarations type an application's use of the public API.
    writeFileSync(
      join(consumer, 'typed.ts'),
      [
        "import { createSvc, defineHooks, ApiError, type Caller } from 'svc';",
        'const hooks = defineHooks({',
        "  posts: { beforeCreate({ values, caller }) { const who: Caller = caller; values.by = 'admin' in who && who.admin ? 'admin' : 'user'; } },",
        "  routes(app) { app.get('/x', { auth: 'public' }, async (request) => ({ caller: request.svc.caller })); },",
        '});',
        "export const start = () => createSvc({ configPath: 'svc.config.yaml', hooks });",
        "export const refusal = new ApiError(422, 'NO', 'no', { pointer: '/data' });",
        // Unused expectations fail the check: they prove the declarations resolved (not `any`).
        '// @ts-expect-error: a status is a number',
        "export const wrong = new ApiError('422', 'NO', 'no');",
        '// @ts-expect-error: a hook is a function',
        'export const notAHook = defineHooks({ posts: { beforeCreate: 42 } });',
        '',
      ].join('\n'),
    );
    const tsc = join(realpathSync(join(ROOT, 'node_modules')), 'typescript/bin/tsc');
    await run(
      process.execPath,
      [
        tsc,
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--skipLibCheck',
        'typed.ts',
      ],
      consumer,
    );
  } finally {
    if (svc && svc.exitCode === null && svc.signalCode === null) process.kill(-svc.pid!, 'SIGKILL');
    rmSync(workDir, { recursive: true, force: true });
  }
});
