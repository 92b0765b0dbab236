// svc used by a JSON:API client no one here wrote, for Atomic Operations: Orbit (`@orbit/jsonapi`)
// turns its own record operations into an `atomic:operations` document with its serializers and
// sends it with its request processor, over HTTP to a listening svc. Orbit gives records
// client-generated ids, so the resources take them (`clientIds: true`).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { JSONAPIAtomicOperationsDocumentSerializer, JSONAPIRequestProcessor } from '@orbit/jsonapi';
import { RecordSchema, RecordTransformBuilder, type RecordOperation } from '@orbit/records';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createTestUser, TEST_PASSWORD } from '../helpers/test-user.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';

const RESOURCES: Record<string, ResourceDefinition> = {
  authors: {
    clientIds: true,
    fields: { name: { type: 'string', required: true } },
    permissions: { editor: { read: true, create: true, update: true, delete: true } },
  },
  books: {
    clientIds: true,
    fields: {
      title: { type: 'string', required: true },
      author_id: { type: 'relation', resource: 'authors', onDelete: 'cascade' },
    },
    permissions: { editor: { read: true, create: true, update: true, delete: true } },
  },
};

const ORBIT_SCHEMA = new RecordSchema({
  models: {
    authors: { attributes: { name: { type: 'string' } } },
    books: {
      attributes: { title: { type: 'string' } },
      relationships: { author: { kind: 'hasOne', type: 'authors' } },
    },
  },
});

interface AtomicResults {
  'atomic:results': (
    | { data: { type: string; id: string; attributes: Record<string, unknown> } }
    | Record<string, never>
  )[];
}

for (const dialect of testDialects()) {
  describe(`Orbit's JSON:API atomic operations against svc on ${dialect}`, () => {
    let t: TestApp;
    let address: string;
    let processor: JSONAPIRequestProcessor;

    before(async () => {
      t = await startTestApp(dialect, { resources: RESOURCES });
      address = await t.app.listen({ port: 0, host: '127.0.0.1' });
      await createTestUser(t.ctx, { id: 'orbit-user', email: 'orbit@example.com', role: 'editor' });
      const issued = await fetch(`${address}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'orbit@example.com', password: TEST_PASSWORD }),
      });
      const { key } = (await issued.json()) as { key: string };
      processor = new JSONAPIRequestProcessor({
        sourceName: 'remote',
        schema: ORBIT_SCHEMA,
        host: address,
        namespace: 'v1',
        defaultFetchSettings: { headers: { Authorization: `Bearer ${key}` } },
      });
    });
    after(() => t?.close());

    /** What Orbit sends for its operations: its own document, through its own fetch. */
    const sendOperations = (operations: RecordOperation[]) => {
      // Orbit 0.17 has the document serializer but does not register it by default: built on the processor's own serializers.
      const serializer = new JSONAPIAtomicOperationsDocumentSerializer({
        serializerFor: processor.serializerFor,
        schema: ORBIT_SCHEMA,
      });
      const document = serializer.serialize({ operations });
      return processor.fetch(`${address}/v1/operations`, {
        method: 'POST',
        json: document,
        headers: { 'Content-Type': 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"' },
      });
    };

    it('adds an author and a book that refers to it, updates the book and removes a record, in one request', async () => {
      const t1 = new RecordTransformBuilder();
      const author = { type: 'authors', id: crypto.randomUUID(), attributes: { name: 'Ursula' } };
      const book = {
        type: 'books',
        id: crypto.randomUUID(),
        attributes: { title: 'The Dispossessed' },
        relationships: { author: { data: { type: 'authors', id: author.id } } },
      };
      const doomed = { type: 'authors', id: crypto.randomUUID(), attributes: { name: 'Nobody' } };
      const response = await sendOperations([
        t1.addRecord(author).toOperation(),
        t1.addRecord(book).toOperation(),
        t1.addRecord(doomed).toOperation(),
        t1.updateRecord({ type: 'books', id: book.id, attributes: { title: 'The Dispossessed (1974)' } }).toOperation(),
        t1.removeRecord({ type: 'authors', id: doomed.id }).toOperation(),
      ]);
      assert.equal(response.response?.status, 200);
      const results = (response.document as unknown as AtomicResults)['atomic:results'];
      assert.equal(results.length, 5);
      const savedBook = results[1] as { data: { id: string; attributes: Record<string, unknown> } };
      assert.equal(savedBook.data.id, book.id);
      assert.equal(savedBook.data.attributes.author_id, author.id);
      assert.deepEqual(results[4], {});
      const stored = await fetch(`${address}/v1/books/${book.id}`, {
        headers: { Authorization: (processor.defaultFetchSettings.headers as Record<string, string>).Authorization! },
      });
      assert.equal(
        ((await stored.json()) as { data: { attributes: { title: string } } }).data.attributes.title,
        'The Dispossessed (1974)',
      );
      const gone = await fetch(`${address}/v1/authors/${doomed.id}`, {
        headers: { Authorization: (processor.defaultFetchSettings.headers as Record<string, string>).Authorization! },
      });
      assert.equal(gone.status, 404);
    });

    it('gets the failing operation back from a batch that stores nothing', async () => {
      const t2 = new RecordTransformBuilder();
      const author = { type: 'authors', id: crypto.randomUUID(), attributes: { name: 'Kept?' } };
      await assert.rejects(
        sendOperations([
          t2.addRecord(author).toOperation(),
          t2.addRecord({ type: 'books', id: crypto.randomUUID(), attributes: {} }).toOperation(),
        ]),
        (error: { response?: Response; data?: { errors: { code: string; source: { pointer: string } }[] } }) => {
          assert.equal(error.response?.status, 400);
          assert.equal(error.data?.errors[0]?.source.pointer, '/atomic:operations/1/data/attributes/title');
          return true;
        },
      );
      const author404 = await fetch(`${address}/v1/authors/${author.id}`, {
        headers: { Authorization: (processor.defaultFetchSettings.headers as Record<string, string>).Authorization! },
      });
      assert.equal(author404.status, 404);
    });
  });
}
