// The example's own tests: svc started in-process with createSvc, called through app.inject.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSvc } from 'svc';

const dataDir = mkdtempSync(join(tmpdir(), 'svc-hooks-app-'));
const admin = 'example-admin-token-0123456789abcdef';
let svc;
let key;

const call = (method, url, payload, auth = key) =>
  svc.app.inject({ method, url, payload, headers: { authorization: `Bearer ${auth}` } });

before(async () => {
  svc = await createSvc({
    configPath: fileURLToPath(new URL('../svc.config.yaml', import.meta.url)),
    env: { DATABASE_URL: `sqlite:${join(dataDir, 'data.db')}`, SVC_ADMIN_TOKEN: admin },
  });
  const signUp = await svc.app.inject({
    method: 'POST',
    url: '/auth/sign-up/email',
    payload: { name: 'Ada', email: 'ada@example.test', password: 'correct horse battery' },
  });
  assert.equal(signUp.statusCode, 200, signUp.body);
  const token = await svc.app.inject({
    method: 'POST',
    url: '/token',
    payload: { email: 'ada@example.test', password: 'correct horse battery' },
  });
  assert.equal(token.statusCode, 201, token.body);
  key = token.json().key;
});

after(async () => {
  await svc?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a new post gets a slug from its title', async () => {
  const created = await call('POST', '/v1/posts', { title: 'Hello, Hooks!' });
  assert.equal(created.statusCode, 201, created.body);
  assert.equal(created.json().data.attributes.slug, 'hello-hooks');
});

test('publishing a post without a body is refused with a pointer', async () => {
  const id = (await call('POST', '/v1/posts', { title: 'Empty' })).json().data.id;
  const refused = await call('PATCH', `/v1/posts/${id}`, { status: 'published' });
  assert.equal(refused.statusCode, 422);
  assert.deepEqual(refused.json().errors[0].source, { pointer: '/data/attributes/body' });
  assert.equal(refused.json().errors[0].code, 'EMPTY_POST');
  const published = await call('PATCH', `/v1/posts/${id}`, { status: 'published', body: 'now it has words' });
  assert.equal(published.statusCode, 200, published.body);
});

test('the summary route counts words, for API keys only, and is in the OpenAPI document', async () => {
  const id = (await call('POST', '/v1/posts', { title: 'Counted', body: 'one two three four' })).json().data.id;
  const summary = await call('GET', `/v1/posts/${id}/summary`);
  assert.equal(summary.statusCode, 200, summary.body);
  assert.equal(summary.json().data.attributes.words, 4);
  assert.equal((await svc.app.inject({ method: 'GET', url: `/v1/posts/${id}/summary` })).statusCode, 401);
  const openapi = (await svc.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  assert.equal(openapi.paths['/v1/posts/{id}/summary'].get.summary, 'How long a post is');
});

test('records, as the system, outside any request', async () => {
  const posts = await svc.records('posts', { as: 'system' }).list({ _limit: 10 });
  assert.ok(posts.length >= 3);
  assert.throws(() => svc.records('posts'), /there is no caller here/);
});
