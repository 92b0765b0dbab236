// End to end: the `svc` command as a user runs it, a real process on a free port, driven over real HTTP.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';

const SVC = join(import.meta.dirname, '../../bin/svc.js');
const ADMIN = 'e2e-admin-token-abcdefghijklmnop';
const PASSWORD = 'correct horse battery';

function svcSync(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [SVC, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
}

describe('svc as a process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-e2e-'));
  const configFile = join(dir, 'svc.config.yaml');
  let child: ChildProcess;
  let base: string;
  let output = '';

  before(async () => {
    const example = readFileSync(join(import.meta.dirname, '../../examples/blog.yaml'), 'utf8');
    writeFileSync(
      configFile,
      example
        .replace('url: "sqlite:./.svc/data.db"', `url: "sqlite:${join(dir, 'data.db')}"`)
        .replace('adminToken: "${SVC_ADMIN_TOKEN:-}"', `adminToken: "${ADMIN}"`),
    );
    const created = svcSync([
      'users',
      'create',
      '--config',
      configFile,
      '--email',
      'ed@example.com',
      '--password',
      PASSWORD,
      '--role',
      'editor',
    ]);
    assert.equal(created.status, 0, created.stderr + created.stdout);
    child = spawn(process.execPath, [SVC, 'start', '--config', configFile, '--port', '0', '--host', '127.0.0.1'], {
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "listening on" line within 30 s:\n${output}`)), 30_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.once('exit', (code) => reject(new Error(`svc exited with ${code}:\n${output}`)));
    });
  });

  after(async () => {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  });

  it('serves health, readiness and the OpenAPI document without a key', async () => {
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    assert.equal((await fetch(`${base}/readyz`)).status, 200);
    const json = await fetch(`${base}/openapi.json`);
    assert.equal(json.status, 200);
    assert.equal(((await json.json()) as { openapi: string }).openapi, '3.1.0');
    const yaml = await fetch(`${base}/openapi.yaml`);
    assert.match(await yaml.text(), /^openapi: 3\.1\.0/m);
  });

  it('issues a key at /token and serves CRUD and queries with it', async () => {
    const token = await fetch(`${base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ed@example.com', password: PASSWORD }),
    });
    assert.equal(token.status, 201);
    const { key } = (await token.json()) as { key: string };
    assert.match(key, /^svc_/);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

    const category = await fetch(`${base}/v1/categories`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'News', slug: 'news' }),
    });
    assert.equal(category.status, 201, await category.clone().text());
    const categoryId = ((await category.json()) as { data: { id: string } }).data.id;
    for (const [title, views] of [
      ['One', 1],
      ['Two', 2],
      ['Three', 3],
    ] as const) {
      const post = await fetch(`${base}/v1/posts`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ title, views, status: 'published', category_id: categoryId }),
      });
      assert.equal(post.status, 201, await post.clone().text());
    }
    const list = await fetch(`${base}/v1/posts?views__gte=2&_sort=-views&fields=title`, { headers });
    assert.equal(list.status, 200);
    assert.match(String(list.headers.get('content-type')), /application\/vnd\.api\+json/);
    assert.ok(list.headers.get('x-request-id'));
    const body = (await list.json()) as { data: { attributes: Record<string, unknown> }[]; meta: { total: number } };
    assert.deepEqual(
      body.data.map((d) => d.attributes.title),
      ['Three', 'Two'],
    );
    assert.equal(body.meta.total, 2);

    const schema = await fetch(`${base}/v1/posts/schema`, { headers });
    assert.equal(schema.status, 200);
    assert.match(String(schema.headers.get('content-type')), /application\/schema\+json/);

    const denied = await fetch(`${base}/v1/posts`);
    assert.equal(denied.status, 401);
    const admin = await fetch(`${base}/v1/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: '{"title":"x"}',
    });
    assert.equal(admin.status, 403);
  });

  it('stops cleanly on SIGTERM', async () => {
    child.kill('SIGTERM');
    const [code] = (await Promise.race([
      once(child, 'exit'),
      new Promise((_, reject) => setTimeout(() => reject(new Error('no exit within 15 s')), 15_000)),
    ])) as [number];
    assert.equal(code, 0, output);
  });

  it('svc check lists every problem with its path and exits 1', () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      'resources:\n  Posts:\n    fields:\n      title: { type: strung }\n      id: { type: string }\n',
    );
    const result = svcSync(['check', '--config', bad]);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /resources\.Posts/);
    assert.match(result.stderr, /resources\.Posts\.fields\.title\.type/);
    assert.match(result.stderr, /resources\.Posts\.fields\.id/);
    const good = svcSync(['check', '--config', configFile]);
    assert.equal(good.status, 0, good.stderr);
  });
});
