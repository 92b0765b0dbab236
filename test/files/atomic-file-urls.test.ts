// POST /v1/operations answers file fields as single-record documents do: each result's file carries its
// download `url` (signed for a protected field), which downloads without the Authorization header.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { multipartPayload } from '../helpers/multipart-payload.ts';

const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

const RESOURCES: Record<string, ResourceDefinition> = {
  profiles: {
    fields: {
      title: { type: 'string', required: true },
      avatar: { type: 'file' },
      papers: { type: 'files' },
      flyer: { type: 'file', protected: false },
    },
    permissions: { editor: { read: true, create: true, update: true, delete: true } },
  },
};

for (const dialect of testDialects()) {
  describe(`atomic results with file fields (${dialect})`, () => {
    let t: TestApp;
    let editor: string;

    before(async () => {
      t = await startTestApp(dialect, { resources: RESOURCES });
      editor = await t.as('editor');
    });
    after(() => t.close());

    it('gives each file in the results its url, signed unless the field is unprotected', async () => {
      const { payload, headers } = multipartPayload([
        { name: 'title', value: 'Ada' },
        { name: 'avatar', file: PNG, filename: 'face.png', type: 'image/png' },
        { name: 'papers', file: Buffer.from('one'), filename: 'one.txt', type: 'text/plain' },
        { name: 'flyer', file: PNG, filename: 'flyer.png', type: 'image/png' },
      ]);
      const created = await t.request({ method: 'POST', url: '/v1/profiles', payload, headers, auth: editor });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json().data.id as string;

      const response = await t.request({
        method: 'POST',
        url: '/v1/operations',
        auth: editor,
        headers: { 'content-type': ATOMIC, accept: ATOMIC },
        payload: JSON.stringify({
          'atomic:operations': [
            { op: 'update', data: { type: 'profiles', id, attributes: { title: 'Ada L.' } } },
            { op: 'add', data: { type: 'profiles', attributes: { title: 'No files' } } },
          ],
        }),
      });
      assert.equal(response.statusCode, 200, response.body);
      const [updated, added] = response.json()['atomic:results'];
      const attributes = updated.data.attributes;
      assert.match(attributes.avatar.url, new RegExp(`^/v1/profiles/${id}/avatar\\?token=\\d+\\.[A-Za-z0-9_-]{43}$`));
      assert.match(attributes.papers[0].url, new RegExp(`^/v1/profiles/${id}/papers/0\\?token=`));
      assert.equal(attributes.flyer.url, `/v1/profiles/${id}/flyer`);
      assert.equal(added.data.attributes.avatar, null);
      assert.deepEqual(added.data.attributes.papers, []);

      // The signed url works without Authorization, as a single-record document's does.
      const download = await t.request({ method: 'GET', url: attributes.avatar.url });
      assert.equal(download.statusCode, 200, download.body);
      assert.deepEqual(download.rawPayload, PNG);
      const paper = await t.request({ method: 'GET', url: attributes.papers[0].url });
      assert.equal(paper.body, 'one');
    });
  });
}
