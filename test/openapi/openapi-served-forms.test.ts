// /openapi.json and /openapi.yaml as the server answers them: the same document in both forms, the YAML
// made on its first request, and both following the definitions when they are replaced.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { BLOG_RESOURCES } from '../helpers/test-config.ts';

describe('the OpenAPI document in JSON and YAML', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite', { resources: BLOG_RESOURCES });
  });
  after(() => t?.close());

  const both = async () => {
    const json = await t.request({ method: 'GET', url: '/openapi.json' });
    const yaml = await t.request({ method: 'GET', url: '/openapi.yaml' });
    assert.equal(json.statusCode, 200);
    assert.equal(yaml.statusCode, 200);
    assert.match(String(yaml.headers['content-type']), /^application\/yaml/);
    return { json: json.json() as { paths: Record<string, unknown> }, yaml: parseYaml(yaml.body) as unknown };
  };

  it('serves one document in both forms, and both follow replaced definitions', async () => {
    const first = await both();
    assert.deepEqual(first.yaml, first.json);
    assert.ok(first.json.paths['/v1/posts']);
    const { posts: _posts, ...withoutPosts } = BLOG_RESOURCES;
    const { comments: _comments, ...rest } = withoutPosts;
    t.ctx.registry.replace(rest);
    const second = await both();
    assert.deepEqual(second.yaml, second.json);
    assert.equal(second.json.paths['/v1/posts'], undefined);
  });
});
