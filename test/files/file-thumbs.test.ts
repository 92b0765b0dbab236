// Thumbnails of real images (JPEG and PNG made by sharp) on SQLite and PostgreSQL, with the local and the
// S3 driver: made on first request in the field's configured sizes only, kept in storage (served even
// once the source is gone), removed with their file; other sizes, non-images and broken images are 400.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import type { ResourceDefinition, StorageConfig } from '../../src/config/config-types.ts';
import { multipartPayload, type FormPart } from '../helpers/multipart-payload.ts';
import { s3StorageOf, startS3TestServer, type S3TestServer } from '../helpers/s3-test-server.ts';

const RESOURCES: Record<string, ResourceDefinition> = {
  photos: {
    fields: {
      title: { type: 'string', required: true },
      image: { type: 'file', thumbs: ['100x100', '0x50'] },
      gallery: { type: 'files', accept: ['image/*'], thumbs: ['64x0'] },
      plain: { type: 'file', accept: ['image/*'] },
    },
    permissions: { editor: { read: true, create: true, update: true, delete: true } },
  },
};

/** A 640×480 photo-like gradient: real encoded image bytes, not a 1-pixel stand-in. */
function gradient(format: 'jpeg' | 'png'): Promise<Buffer> {
  const width = 640;
  const height = 480;
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 3;
      pixels[at] = (x * 255) / width;
      pixels[at + 1] = (y * 255) / height;
      pixels[at + 2] = 128;
    }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .toFormat(format)
    .toBuffer();
}

async function storedKeys(t: TestApp, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of t.ctx.files.storage.list(prefix)) keys.push(object.key);
  return keys.sort();
}

async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail('condition not reached in 2 s');
}

for (const dialect of testDialects()) {
  for (const driver of ['local', 's3'] as const) {
    describe(`file thumbnails (${dialect}, ${driver})`, () => {
      let t: TestApp;
      let s3: S3TestServer | undefined;
      let editor: string;
      let jpeg: Buffer;
      let png: Buffer;

      const create = async (parts: FormPart[]) => {
        const { payload, headers } = multipartPayload([{ name: 'title', value: 'p' }, ...parts]);
        const response = await t.request({ method: 'POST', url: '/v1/photos', payload, headers, auth: editor });
        assert.equal(response.statusCode, 201, response.body);
        return response.json().data as { id: string; attributes: Record<string, { id: string; url: string }> };
      };

      before(async () => {
        [jpeg, png] = await Promise.all([gradient('jpeg'), gradient('png')]);
        let storage: StorageConfig | undefined;
        if (driver === 's3') {
          s3 = await startS3TestServer();
          storage = s3StorageOf(s3);
        }
        t = await startTestApp(dialect, { resources: RESOURCES, ...(storage ? { storage } : {}) });
        editor = await t.as('editor');
      });
      after(async () => {
        await t.close();
        await s3?.close();
      });

      it('makes a configured thumbnail on first request, keeps it in storage and serves it from there', async () => {
        const record = await create([{ name: 'image', file: jpeg, filename: 'sunset.jpg', type: 'image/jpeg' }]);
        const image = record.attributes.image as { id: string; url: string };
        const derived = `derived/photos/${record.id}/image/${image.id}/`;
        assert.deepEqual(await storedKeys(t, derived), []);

        // The signed URL of the file serves its thumbnails too, without Authorization.
        const square = await t.request({ method: 'GET', url: `${image.url}&thumb=100x100` });
        assert.equal(square.statusCode, 200, square.body);
        assert.equal(square.headers['content-type'], 'image/jpeg');
        assert.equal(square.headers['content-length'], String(square.rawPayload.length));
        assert.match(String(square.headers['content-disposition']), /^inline; filename="sunset-100x100.jpg"/);
        assert.equal(square.headers['x-content-type-options'], 'nosniff');
        const squareInfo = await sharp(square.rawPayload).metadata();
        assert.deepEqual([squareInfo.format, squareInfo.width, squareInfo.height], ['jpeg', 100, 100]);
        assert.deepEqual(await storedKeys(t, derived), [`${derived}thumb-100x100`]);

        // 0 keeps the ratio: 640×480 at height 50 is 67 wide.
        const byHeight = await t.request({
          method: 'GET',
          url: `/v1/photos/${record.id}/image?thumb=0x50`,
          auth: editor,
        });
        assert.equal(byHeight.statusCode, 200, byHeight.body);
        const heightInfo = await sharp(byHeight.rawPayload).metadata();
        assert.deepEqual([heightInfo.width, heightInfo.height], [67, 50]);

        // Kept: with the source gone from storage the thumbnails are still served, byte for byte.
        await t.ctx.files.storage.delete(`photos/${record.id}/image/${image.id}`);
        const again = await t.request({ method: 'GET', url: `${image.url}&thumb=100x100` });
        assert.equal(again.statusCode, 200, again.body);
        assert.deepEqual(again.rawPayload, square.rawPayload);
        const tag = again.headers.etag as string;
        const unchanged = await t.request({
          method: 'GET',
          url: `${image.url}&thumb=100x100`,
          headers: { 'if-none-match': tag },
        });
        assert.equal(unchanged.statusCode, 304);
        const part = await t.request({
          method: 'GET',
          url: `${image.url}&thumb=100x100`,
          headers: { range: 'bytes=0-9' },
        });
        assert.equal(part.statusCode, 206);
        assert.deepEqual(part.rawPayload, square.rawPayload.subarray(0, 10));
      });

      it('makes thumbnails of each image in a list, as PNG from a PNG', async () => {
        const record = await create([
          { name: 'gallery', file: png, filename: 'a.png', type: 'image/png' },
          { name: 'gallery', file: jpeg, filename: 'b.jpg', type: 'image/jpeg' },
        ]);
        const gallery = record.attributes.gallery as unknown as { url: string }[];
        const first = await t.request({ method: 'GET', url: `${gallery[0]?.url}&thumb=64x0` });
        assert.equal(first.statusCode, 200, first.body);
        assert.equal(first.headers['content-type'], 'image/png');
        const info = await sharp(first.rawPayload).metadata();
        assert.deepEqual([info.format, info.width, info.height], ['png', 64, 48]);
        const second = await t.request({
          method: 'GET',
          url: `/v1/photos/${record.id}/gallery/1?thumb=64x0`,
          auth: editor,
        });
        assert.equal(second.headers['content-type'], 'image/jpeg');
      });

      it('refuses sizes the field does not list with 400 on the thumb parameter, before making anything', async () => {
        const record = await create([
          { name: 'image', file: jpeg, filename: 'x.jpg', type: 'image/jpeg' },
          { name: 'plain', file: png, filename: 'y.png', type: 'image/png' },
        ]);
        const image = record.attributes.image as { id: string; url: string };
        const asks = [
          `${image.url}&thumb=200x200`,
          `${image.url}&thumb=100x100&thumb=0x50`,
          `${image.url}&thumb=`,
          `${image.url}&thumb=0x0`,
          `${image.url}&thumb=100x100%00`,
          `/v1/photos/${record.id}/plain?thumb=100x100`,
        ];
        for (const url of asks) {
          const response = await t.request({ method: 'GET', url, auth: url.includes('token=') ? undefined : editor });
          assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
          const error = response.json().errors[0];
          assert.equal(error.code, 'INVALID_QUERY_PARAMS');
          assert.equal(error.source.parameter, 'thumb');
        }
        assert.deepEqual(await storedKeys(t, `derived/photos/${record.id}/`), []);
      });

      it('answers 400 for a file that is not an image and for an image sharp cannot read, never a 500', async () => {
        const pdf = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
        // A PNG signature and header (sniffed as PNG) followed by garbage instead of image data.
        const broken = Buffer.concat([png.subarray(0, 33), Buffer.alloc(2000, 7)]);
        const record = await create([{ name: 'image', file: pdf, filename: 'doc.pdf', type: 'application/pdf' }]);
        const notImage = await t.request({
          method: 'GET',
          url: `/v1/photos/${record.id}/image?thumb=100x100`,
          auth: editor,
        });
        assert.equal(notImage.statusCode, 400, notImage.body);
        assert.equal(notImage.json().errors[0].source.parameter, 'thumb');

        const bad = await create([{ name: 'image', file: broken, filename: 'bad.png', type: 'image/png' }]);
        assert.equal((bad.attributes.image as unknown as { type: string }).type, 'image/png');
        const unreadable = await t.request({
          method: 'GET',
          url: `/v1/photos/${bad.id}/image?thumb=100x100`,
          auth: editor,
        });
        assert.equal(unreadable.statusCode, 400, unreadable.body);
        assert.equal(unreadable.json().errors[0].source.parameter, 'thumb');
        assert.deepEqual(await storedKeys(t, `derived/photos/${bad.id}/`), []);
      });

      it('removes the thumbnails with their file when it is replaced', async () => {
        const record = await create([{ name: 'image', file: jpeg, filename: 'x.jpg', type: 'image/jpeg' }]);
        const image = record.attributes.image as { id: string; url: string };
        const made = await t.request({ method: 'GET', url: `${image.url}&thumb=100x100` });
        assert.equal(made.statusCode, 200);
        const derived = `derived/photos/${record.id}/image/${image.id}/`;
        assert.equal((await storedKeys(t, derived)).length, 1);
        const replaced = await t.request({
          method: 'PUT',
          url: `/v1/photos/${record.id}/image`,
          payload: png,
          headers: { 'content-type': 'image/png' },
          auth: editor,
        });
        assert.equal(replaced.statusCode, 200, replaced.body);
        await eventually(async () => (await storedKeys(t, derived)).length === 0);
      });
    });
  }
}
