// Rows a delete removes by cascade write no event of their own; their files are removed after the commit
// all the same (not left to the sweeper): two levels of ON DELETE CASCADE under a hard delete, and the
// rows a soft delete's cascade removes from a resource without soft delete. Other records keep theirs.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { multipartPayload, type FormPart } from '../helpers/multipart-payload.ts';

const ALL = { read: true, create: true, update: true, delete: true } as const;
const RESOURCES: Record<string, ResourceDefinition> = {
  albums: { fields: { name: { type: 'string', required: true } }, permissions: { editor: ALL } },
  photos: {
    fields: {
      album_id: { type: 'relation', resource: 'albums', required: true, onDelete: 'cascade' },
      image: { type: 'file' },
    },
    permissions: { editor: ALL },
  },
  captions: {
    fields: {
      photo_id: { type: 'relation', resource: 'photos', required: true, onDelete: 'cascade' },
      notes: { type: 'files' },
    },
    permissions: { editor: ALL },
  },
  folders: {
    enableSoftDelete: true,
    fields: { name: { type: 'string', required: true } },
    permissions: { editor: ALL },
  },
  papers: {
    fields: {
      folder_id: { type: 'relation', resource: 'folders', required: true, onDelete: 'cascade' },
      scan: { type: 'file' },
    },
    permissions: { editor: ALL },
  },
};

for (const dialect of testDialects()) {
  describe(`files of rows removed by a cascade (${dialect})`, () => {
    let t: TestApp;
    let editor: string;

    const create = async (resource: string, parts: FormPart[]): Promise<string> => {
      const { payload, headers } = multipartPayload(parts);
      const response = await t.request({ method: 'POST', url: `/v1/${resource}`, payload, headers, auth: editor });
      assert.equal(response.statusCode, 201, response.body);
      return response.json().data.id as string;
    };
    const file = (name: string, text: string): FormPart => ({
      name,
      file: Buffer.from(text),
      filename: `${text}.txt`,
      type: 'text/plain',
    });
    const keys = async (prefix: string): Promise<string[]> => {
      const found: string[] = [];
      for await (const object of t.ctx.files.storage.list(prefix)) found.push(object.key);
      return found.sort();
    };
    /** Removal runs after the commit, off the request: polled, at most 2 s. */
    const eventually = async (check: () => Promise<boolean>, what: string) => {
      for (let i = 0; i < 100; i++) {
        if (await check()) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.fail(`${what} within 2 s`);
    };

    before(async () => {
      t = await startTestApp(dialect, { resources: RESOURCES });
      editor = await t.as('editor');
    });
    after(() => t.close());

    it('removes the files of every row a hard delete cascades to, two levels down', async () => {
      const album = await create('albums', [{ name: 'name', value: 'Summer' }]);
      const kept = await create('albums', [{ name: 'name', value: 'Winter' }]);
      const photos = [
        await create('photos', [{ name: 'album_id', value: album }, file('image', 'beach')]),
        await create('photos', [{ name: 'album_id', value: album }, file('image', 'dunes')]),
      ];
      const caption = await create('captions', [
        { name: 'photo_id', value: photos[0]! },
        file('notes', 'first'),
        file('notes', 'second'),
      ]);
      const other = await create('photos', [{ name: 'album_id', value: kept }, file('image', 'snow')]);
      assert.equal((await keys(`photos/${photos[0]}/`)).length, 1);
      assert.equal((await keys(`captions/${caption}/`)).length, 2);

      const removed = await t.request({ method: 'DELETE', url: `/v1/albums/${album}`, auth: editor });
      assert.equal(removed.statusCode, 204, removed.body);
      const gone = await t.request({ method: 'GET', url: `/v1/captions/${caption}`, auth: editor });
      assert.equal(gone.statusCode, 404, 'the database cascaded the delete');
      await eventually(
        async () =>
          (await keys(`photos/${photos[0]}/`)).length === 0 &&
          (await keys(`photos/${photos[1]}/`)).length === 0 &&
          (await keys(`captions/${caption}/`)).length === 0,
        'the cascaded rows’ files are removed',
      );
      assert.equal((await keys(`photos/${other}/`)).length, 1, "another album's photo keeps its file");
      assert.deepEqual(await keys('tmp/'), []);
    });

    it("removes the files of rows a soft delete's cascade removes from a resource without soft delete", async () => {
      const folder = await create('folders', [{ name: 'name', value: 'Taxes' }]);
      const paper = await create('papers', [{ name: 'folder_id', value: folder }, file('scan', 'receipt')]);
      assert.equal((await keys(`papers/${paper}/`)).length, 1);
      const removed = await t.request({ method: 'DELETE', url: `/v1/folders/${folder}`, auth: editor });
      assert.equal(removed.statusCode, 204, removed.body);
      await eventually(async () => (await keys(`papers/${paper}/`)).length === 0, "the paper's scan is removed");
    });
  });
}
