// File fields end to end on SQLite and PostgreSQL, with the local and the S3 driver (a real S3 API from
// s3rver): multipart and raw uploads, sniffing, size limits, downloads with ranges and safe headers,
// signed URLs (tampered, expired), the permission matrix, and no object left behind by a failed,
// replaced, cleared or deleted file.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { buildApp } from '../../src/server.ts';
import { testDialects } from '../helpers/test-databases.ts';
import type { ResourceDefinition, StorageConfig } from '../../src/config/config-types.ts';
import { multipartPayload, type FormPart } from '../helpers/multipart-payload.ts';
import { s3StorageOf, startS3TestServer, type S3TestServer } from '../helpers/s3-test-server.ts';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);
const HTML = Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

const RESOURCES: Record<string, ResourceDefinition> = {
  profiles: {
    enableSoftDelete: true,
    fields: {
      title: { type: 'string', required: true },
      avatar: { type: 'file', accept: ['image/*'], maxSize: 2048 },
      papers: { type: 'files', maxCount: 2 },
      secret: { type: 'file' },
      open: { type: 'file', protected: false },
    },
    permissions: {
      editor: { read: true, create: true, update: true, delete: true },
      viewer: { read: { fields: ['title', 'avatar', 'open'] } },
      limited: {
        read: { fields: ['title', 'avatar'] },
        create: { fields: ['title'] },
        update: { fields: ['title'] },
      },
    },
  },
  notes: {
    fields: { title: { type: 'string', required: true }, attachment: { type: 'file' } },
    permissions: { editor: { read: true, create: true, update: true, delete: true } },
  },
};

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function storedKeys(t: TestApp, prefix = ''): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of t.ctx.files.storage.list(prefix)) keys.push(object.key);
  return keys.sort();
}

/** Removal happens after the commit, off the request: poll a bounded number of times. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail('condition not reached in 2 s');
}

for (const dialect of testDialects()) {
  for (const driver of ['local', 's3'] as const) {
    describe(`file fields (${dialect}, ${driver})`, () => {
      let t: TestApp;
      let s3: S3TestServer | undefined;
      let editor: string;

      const upload = async (parts: FormPart[], auth = editor, method = 'POST', url = '/v1/profiles') => {
        const { payload, headers } = multipartPayload(parts);
        return t.request({ method: method as 'POST', url, payload, headers, auth });
      };

      before(async () => {
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

      it('creates a record with a multipart upload and answers metadata with a signed url, never bytes', async () => {
        const response = await upload([
          { name: 'title', value: 'Ada' },
          { name: 'avatar', file: PNG, filename: 'face.png', type: 'image/png' },
        ]);
        assert.equal(response.statusCode, 201, response.body);
        const avatar = response.json().data.attributes.avatar;
        assert.equal(avatar.name, 'face.png');
        assert.equal(avatar.size, PNG.length);
        assert.equal(avatar.type, 'image/png');
        assert.equal(avatar.sha256, sha256(PNG));
        const id = response.json().data.id;
        assert.match(avatar.url, new RegExp(`^/v1/profiles/${id}/avatar\\?token=\\d+\\.[A-Za-z0-9_-]{43}$`));
        // Moved out of the pending area into the record's place.
        assert.deepEqual(await storedKeys(t, 'tmp/'), []);
        assert.deepEqual(await storedKeys(t, `profiles/${id}/`), [`profiles/${id}/avatar/${avatar.id}`]);

        // The signed URL downloads without Authorization, with the safe headers.
        const download = await t.request({ method: 'GET', url: avatar.url });
        assert.equal(download.statusCode, 200);
        assert.deepEqual(download.rawPayload, PNG);
        assert.equal(download.headers['content-type'], 'image/png');
        assert.equal(download.headers['content-length'], String(PNG.length));
        assert.equal(download.headers.etag, `"${sha256(PNG)}"`);
        assert.equal(download.headers['x-content-type-options'], 'nosniff');
        assert.match(String(download.headers['content-security-policy']), /sandbox/);
        assert.match(String(download.headers['content-disposition']), /^inline; filename="face.png"/);

        const part = await t.request({ method: 'GET', url: avatar.url, headers: { range: 'bytes=1-3' } });
        assert.equal(part.statusCode, 206);
        assert.deepEqual(part.rawPayload, PNG.subarray(1, 4));
        assert.equal(part.headers['content-range'], `bytes 1-3/${PNG.length}`);
        const suffix = await t.request({ method: 'GET', url: avatar.url, headers: { range: 'bytes=-2' } });
        assert.deepEqual(suffix.rawPayload, PNG.subarray(PNG.length - 2));
        const beyond = await t.request({ method: 'GET', url: avatar.url, headers: { range: `bytes=${PNG.length}-` } });
        assert.equal(beyond.statusCode, 416);
        assert.equal(beyond.headers['content-range'], `bytes */${PNG.length}`);
        const cached = await t.request({
          method: 'GET',
          url: avatar.url,
          headers: { 'if-none-match': `"${sha256(PNG)}"` },
        });
        assert.equal(cached.statusCode, 304);
      });

      it('refuses an HTML page claiming to be an image (415 with the pointer) and keeps nothing', async () => {
        const response = await upload([
          { name: 'title', value: 'x' },
          { name: 'avatar', file: HTML, filename: 'face.png', type: 'image/png' },
        ]);
        assert.equal(response.statusCode, 415, response.body);
        assert.equal(response.json().errors[0].source.pointer, '/data/attributes/avatar');
        assert.deepEqual(await storedKeys(t, 'tmp/'), []);
      });

      it('takes the type from the bytes: a PNG named .pdf is an image, HTML is served as an attachment', async () => {
        const response = await upload([
          { name: 'title', value: 'y' },
          { name: 'avatar', file: PNG, filename: 'report.pdf', type: 'application/pdf' },
          { name: 'secret', file: HTML, filename: 'page.html', type: 'text/html' },
        ]);
        assert.equal(response.statusCode, 201, response.body);
        const { avatar, secret } = response.json().data.attributes;
        assert.equal(avatar.type, 'image/png');
        assert.equal(secret.type, 'application/octet-stream');
        const page = await t.request({ method: 'GET', url: secret.url });
        assert.equal(page.headers['content-type'], 'application/octet-stream');
        assert.match(String(page.headers['content-disposition']), /^attachment;/);
        assert.match(String(page.headers['content-security-policy']), /sandbox/);
      });

      it('stops an upload over maxSize while it streams: 413 with the pointer, nothing left in storage', async () => {
        const big = Buffer.concat([PNG, Buffer.alloc(4096)]);
        const response = await upload([
          { name: 'title', value: 'z' },
          { name: 'avatar', file: big, filename: 'big.png', type: 'image/png' },
        ]);
        assert.equal(response.statusCode, 413, response.body);
        assert.equal(response.json().errors[0].source.pointer, '/data/attributes/avatar');
        assert.deepEqual(await storedKeys(t, 'tmp/'), []);
      });

      it('removes the upload when the record write fails', async () => {
        const before = await storedKeys(t);
        const response = await upload([{ name: 'avatar', file: PNG, filename: 'a.png', type: 'image/png' }]);
        assert.equal(response.statusCode, 400, response.body);
        assert.deepEqual(await storedKeys(t), before);
      });

      it('sanitises names: no folders, no control characters', async () => {
        const response = await upload([
          { name: 'title', value: 'n' },
          { name: 'secret', file: PDF, filename: '../../etc/pass\u0001wd', type: 'application/pdf' },
        ]);
        assert.equal(response.statusCode, 201, response.body);
        const secret = response.json().data.attributes.secret;
        assert.equal(secret.name, 'pass_wd');
        assert.equal(secret.type, 'application/pdf');
        const pdf = await t.request({ method: 'GET', url: secret.url });
        assert.match(String(pdf.headers['content-disposition']), /^inline;/);
      });

      it('refuses file metadata written as JSON: only an upload makes a file', async () => {
        const forged = { id: 'x', name: 'a.png', size: 1, type: 'image/png', sha256: 'a'.repeat(64) };
        const response = await t.request({
          method: 'POST',
          url: '/v1/profiles',
          auth: editor,
          payload: { title: 'f', avatar: forged },
        });
        assert.equal(response.statusCode, 400, response.body);
        assert.equal(response.json().errors[0].source.pointer, '/data/attributes/avatar');
      });

      it('refuses tampered and expired tokens, and a token of another file', async () => {
        const created = (
          await upload([
            { name: 'title', value: 't' },
            { name: 'avatar', file: PNG, filename: 'a.png', type: 'image/png' },
            { name: 'secret', file: PDF, filename: 's.pdf', type: 'application/pdf' },
          ])
        ).json().data;
        const { avatar, secret } = created.attributes;
        const token = new URL(avatar.url, 'http://x').searchParams.get('token') as string;
        const [expires, signature] = token.split('.') as [string, string];
        const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
        for (const bad of [
          `${expires}.${flipped}`,
          `${Number(expires) + 1000}.${signature}`,
          'garbage',
          new URL(secret.url, 'http://x').searchParams.get('token') as string,
        ]) {
          const response = await t.request({
            method: 'GET',
            url: `/v1/profiles/${created.id}/avatar?token=${encodeURIComponent(bad)}`,
          });
          assert.equal(response.statusCode, 401, bad);
          assert.equal(response.json().errors[0].code, 'INVALID_TOKEN');
          assert.equal(response.json().errors[0].source.parameter, 'token');
        }
        const expired = t.ctx.files.signer.sign(
          { resource: 'profiles', recordId: created.id, field: 'avatar', fileId: avatar.id },
          Date.now() - 3600_000,
        );
        const late = await t.request({ method: 'GET', url: `/v1/profiles/${created.id}/avatar?token=${expired}` });
        assert.equal(late.statusCode, 401);
        assert.match(late.json().errors[0].detail, /expired/);
      });

      it('downloads by permission: read on the field and row, 404 when hidden, 401 without a caller', async () => {
        const created = (
          await upload([
            { name: 'title', value: 'p' },
            { name: 'avatar', file: PNG, filename: 'a.png', type: 'image/png' },
            { name: 'secret', file: PDF, filename: 's.pdf', type: 'application/pdf' },
            { name: 'open', file: PDF, filename: 'o.pdf', type: 'application/pdf' },
          ])
        ).json().data;
        const viewer = await t.as('viewer');
        const base = `/v1/profiles/${created.id}`;
        const matrix: Array<[string, string | undefined, number]> = [
          [`${base}/avatar`, editor, 200],
          [`${base}/avatar`, viewer, 200],
          [`${base}/secret`, viewer, 404],
          [`${base}/secret`, undefined, 401],
          [`${base}/open`, undefined, 200],
          [`/v1/profiles/00000000-0000-7000-8000-000000000000/avatar`, editor, 404],
          [`${base}/papers/0`, editor, 404],
        ];
        for (const [url, auth, status] of matrix) {
          const response = await t.request({ method: 'GET', url, ...(auth ? { auth } : {}) });
          assert.equal(response.statusCode, status, `${url} ${auth ? 'with' : 'without'} a caller: ${response.body}`);
        }
        const hidden = await t.request({ method: 'GET', url: `${base}/secret`, auth: viewer });
        const missing = await t.request({
          method: 'GET',
          url: base.replace(created.id, '00000000-0000-7000-8000-000000000000'),
          auth: viewer,
        });
        assert.equal(hidden.json().errors[0].code, missing.json().errors[0].code);
        // The unprotected field's url carries no token.
        const read = await t.request({ method: 'GET', url: base, auth: viewer });
        assert.equal(read.json().data.attributes.open.url, `${base}/open`);
        assert.equal(read.json().data.attributes.secret, undefined);
      });

      it('does not read an upload into a field the caller may not write', async () => {
        const before = await storedKeys(t);
        const limited = await t.as('limited');
        const response = await upload(
          [
            { name: 'title', value: 'l' },
            { name: 'avatar', file: PNG, filename: 'a.png', type: 'image/png' },
          ],
          limited,
        );
        assert.equal(response.statusCode, 400, response.body);
        assert.equal(response.json().errors[0].code, 'INVALID_FIELDS');
        assert.deepEqual(await storedKeys(t), before);
      });

      it('refuses a raw PUT into a field the caller may not write before reading it, and a non-file field', async () => {
        const created = (await upload([{ name: 'title', value: 'w' }])).json().data;
        const before = await storedKeys(t);
        const limited = await t.as('limited');
        const refused = await t.request({
          method: 'PUT',
          url: `/v1/profiles/${created.id}/avatar`,
          auth: limited,
          payload: PNG,
          headers: { 'content-type': 'image/png' },
        });
        assert.equal(refused.statusCode, 400, refused.body);
        assert.equal(refused.json().errors[0].code, 'INVALID_FIELDS');
        const anonymous = await t.request({
          method: 'PUT',
          url: `/v1/profiles/${created.id}/avatar`,
          payload: PNG,
          headers: { 'content-type': 'image/png' },
        });
        assert.equal(anonymous.statusCode, 401);
        const notFile = await t.request({
          method: 'PUT',
          url: `/v1/profiles/${created.id}/title`,
          auth: editor,
          payload: PNG,
          headers: { 'content-type': 'image/png' },
        });
        assert.equal(notFile.statusCode, 405);
        assert.deepEqual(await storedKeys(t), before);
      });

      it('still serves a file whose move after the commit did not happen (a crash in between)', async () => {
        const created = (
          await upload([
            { name: 'title', value: 'c' },
            { name: 'secret', file: PDF, filename: 'c.pdf', type: 'application/pdf' },
          ])
        ).json().data;
        const secret = created.attributes.secret;
        // Put the object back where the upload wrote it, as if the process had stopped before the move.
        await t.ctx.files.storage.move(`profiles/${created.id}/secret/${secret.id}`, `tmp/${secret.id}`);
        const download = await t.request({ method: 'GET', url: `/v1/profiles/${created.id}/secret`, auth: editor });
        assert.equal(download.statusCode, 200);
        assert.deepEqual(download.rawPayload, PDF);
        await t.ctx.files.storage.delete(`tmp/${secret.id}`);
      });

      it('replaces with a raw PUT and clears with JSON, removing the old objects after the commit', async () => {
        const created = (
          await upload([
            { name: 'title', value: 'r' },
            { name: 'avatar', file: PNG, filename: 'a.png', type: 'image/png' },
          ])
        ).json().data;
        const first = created.attributes.avatar;
        const second = Buffer.concat([PNG, Buffer.from('trailing')]);
        const put = await t.request({
          method: 'PUT',
          url: `/v1/profiles/${created.id}/avatar`,
          auth: editor,
          payload: second,
          headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="b.png"' },
        });
        assert.equal(put.statusCode, 200, put.body);
        const replaced = put.json().data.attributes.avatar;
        assert.equal(replaced.name, 'b.png');
        assert.equal(replaced.sha256, sha256(second));
        await eventually(async () => (await storedKeys(t, `profiles/${created.id}/`)).length === 1);
        assert.deepEqual(await storedKeys(t, `profiles/${created.id}/`), [
          `profiles/${created.id}/avatar/${replaced.id}`,
        ]);
        assert.notEqual(first.id, replaced.id);

        // Echoing the record back keeps its file; null clears it.
        const echoed = await t.request({
          method: 'PATCH',
          url: `/v1/profiles/${created.id}`,
          auth: editor,
          payload: { title: 'r2', avatar: replaced },
        });
        assert.equal(echoed.statusCode, 200, echoed.body);
        assert.equal(echoed.json().data.attributes.avatar.id, replaced.id);
        const cleared = await t.request({
          method: 'PATCH',
          url: `/v1/profiles/${created.id}`,
          auth: editor,
          payload: { avatar: null },
        });
        assert.equal(cleared.statusCode, 200, cleared.body);
        assert.equal(cleared.json().data.attributes.avatar, null);
        await eventually(async () => (await storedKeys(t, `profiles/${created.id}/`)).length === 0);
      });

      it('keeps a list of files in order, up to maxCount, each downloadable by index', async () => {
        const created = await upload([
          { name: 'title', value: 'list' },
          { name: 'papers', file: PDF, filename: 'one.pdf', type: 'application/pdf' },
          { name: 'papers', file: PNG, filename: 'two.png', type: 'image/png' },
        ]);
        assert.equal(created.statusCode, 201, created.body);
        const record = created.json().data;
        const papers = record.attributes.papers;
        assert.deepEqual(
          papers.map((p: { name: string }) => p.name),
          ['one.pdf', 'two.png'],
        );
        const second = await t.request({ method: 'GET', url: papers[1].url });
        assert.deepEqual(second.rawPayload, PNG);
        const full = await t.request({
          method: 'PUT',
          url: `/v1/profiles/${record.id}/papers`,
          auth: editor,
          payload: PDF,
          headers: { 'content-type': 'application/pdf' },
        });
        assert.equal(full.statusCode, 400, full.body);
        // Keep the second by id, drop the first; its object goes after the commit.
        const kept = await t.request({
          method: 'PATCH',
          url: `/v1/profiles/${record.id}`,
          auth: editor,
          payload: { papers: [papers[1].id] },
        });
        assert.equal(kept.statusCode, 200, kept.body);
        assert.deepEqual(
          kept.json().data.attributes.papers.map((p: { id: string }) => p.id),
          [papers[1].id],
        );
        await eventually(async () => (await storedKeys(t, `profiles/${record.id}/papers/`)).length === 1);
        const tooMany = await upload([
          { name: 'title', value: 'many' },
          { name: 'papers', file: PDF, filename: '1.pdf' },
          { name: 'papers', file: PDF, filename: '2.pdf' },
          { name: 'papers', file: PDF, filename: '3.pdf' },
        ]);
        assert.equal(tooMany.statusCode, 400);
        assert.equal(tooMany.json().errors[0].source.pointer, '/data/attributes/papers');
        assert.deepEqual(await storedKeys(t, 'tmp/'), []);
      });

      it('keeps files through a soft delete and removes them with a hard delete', async () => {
        const soft = (
          await upload([
            { name: 'title', value: 's' },
            { name: 'secret', file: PDF, filename: 's.pdf' },
          ])
        ).json().data;
        assert.equal(
          (await t.request({ method: 'DELETE', url: `/v1/profiles/${soft.id}`, auth: editor })).statusCode,
          204,
        );
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.equal((await storedKeys(t, `profiles/${soft.id}/`)).length, 1);

        const { payload, headers } = multipartPayload([
          { name: 'title', value: 'h' },
          { name: 'attachment', file: PDF, filename: 'h.pdf' },
        ]);
        const hard = (await t.request({ method: 'POST', url: '/v1/notes', auth: editor, payload, headers })).json()
          .data;
        assert.equal((await storedKeys(t, `notes/${hard.id}/`)).length, 1);
        assert.equal(
          (await t.request({ method: 'DELETE', url: `/v1/notes/${hard.id}`, auth: editor })).statusCode,
          204,
        );
        await eventually(async () => (await storedKeys(t, `notes/${hard.id}/`)).length === 0);
      });

      it('lets another node on the same database and storage serve, sign and remove the files', async (context) => {
        if (dialect !== 'postgres' || driver !== 's3') {
          context.skip('two nodes share PostgreSQL and S3');
          return;
        }
        const other = await buildApp({ config: t.ctx.config });
        await other.app.ready();
        try {
          const created = (
            await upload([
              { name: 'title', value: 'two' },
              { name: 'secret', file: PDF, filename: 'n.pdf', type: 'application/pdf' },
            ])
          ).json().data;
          const signed = await other.app.inject({ method: 'GET', url: created.attributes.secret.url });
          assert.equal(signed.statusCode, 200, signed.body);
          assert.deepEqual(signed.rawPayload, PDF);
          const cleared = await other.app.inject({
            method: 'PATCH',
            url: `/v1/profiles/${created.id}`,
            headers: { authorization: editor },
            payload: { secret: null },
          });
          assert.equal(cleared.statusCode, 200, cleared.body);
          await eventually(async () => (await storedKeys(t, `profiles/${created.id}/`)).length === 0);
        } finally {
          await other.app.close();
        }
      });

      it('answers a malformed or unknown multipart body with a 4xx, never a 500', async () => {
        const boundary = 'xyz';
        const cases: Array<[string, Buffer | string]> = [
          [
            'truncated',
            `--${boundary}\r\nContent-Disposition: form-data; name="avatar"; filename="a.png"\r\n\r\n\x89PNG`,
          ],
          ['no boundary line', 'garbage'],
          ['unknown field', multipartPayload([{ name: 'nope', value: '1' }]).payload.toString('latin1')],
          ['prototype name', multipartPayload([{ name: '__proto__', value: '1' }]).payload.toString('latin1')],
        ];
        for (const [name, payload] of cases) {
          const own = name === 'unknown field' || name === 'prototype name';
          const contentType = own
            ? (multipartPayload([]).headers['content-type'] as string)
            : `multipart/form-data; boundary=${boundary}`;
          const body = own ? Buffer.from(payload as string, 'latin1') : payload;
          const withBoundary = own
            ? Buffer.from(
                (body as Buffer)
                  .toString('latin1')
                  .replace(/----svc-test-[0-9a-f]+/g, contentType.split('boundary=')[1] as string),
                'latin1',
              )
            : body;
          const response = await t.request({
            method: 'POST',
            url: '/v1/profiles',
            auth: editor,
            payload: withBoundary,
            headers: { 'content-type': contentType },
          });
          assert.ok(
            response.statusCode >= 400 && response.statusCode < 500,
            `${name}: ${response.statusCode} ${response.body}`,
          );
        }
        assert.deepEqual(await storedKeys(t, 'tmp/'), []);
      });

      it('carries metadata in events, never bytes or a signed url', async () => {
        const seen: unknown[] = [];
        const stop = t.ctx.events.subscribe('profiles', (event) => seen.push(event.data.new));
        const created = await upload([
          { name: 'title', value: 'e' },
          { name: 'avatar', file: PNG, filename: 'e.png', type: 'image/png' },
        ]);
        await eventually(async () => seen.length > 0);
        stop();
        const avatar = (seen[0] as { avatar: Record<string, unknown> }).avatar;
        assert.deepEqual(Object.keys(avatar).sort(), ['id', 'name', 'sha256', 'size', 'type']);
        assert.equal(avatar.id, created.json().data.attributes.avatar.id);
      });
    });
  }
}
