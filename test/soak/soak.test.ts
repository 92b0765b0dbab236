// A short soak in CI (npm run soak runs it for minutes): mixed reads and writes, stream clients and a
// webhook receiver against a real process, then the audit. Every write's event reaches every client and
// the receiver exactly once, no request fails, and memory does not run away.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { runSoak } from './soak-run.ts';

const SECONDS = 12;

for (const dialect of testDialects()) {
  describe(`soak (${dialect}, ${SECONDS} s)`, { timeout: 180_000 }, () => {
    let database: TestDatabase | undefined;
    after(async () => database?.drop());

    it('delivers every event to every stream client and the receiver exactly once, with no failed request', async () => {
      database = await createTestDatabase(dialect);
      const report = await runSoak({
        databaseUrl: database.url,
        seconds: SECONDS,
        streamClients: 20,
        writers: 3,
        readers: 2,
      });
      process.stdout.write(`# soak ${dialect}: ${JSON.stringify(report)}\n`);
      assert.deepEqual(report.failures, {});
      assert.ok(report.events > 0);
      assert.equal(report.streamMissing, 0);
      assert.equal(report.streamDuplicates, 0);
      assert.equal(report.streamMismatch, 0);
      assert.equal(report.webhookMissing, 0);
      assert.equal(report.webhookDuplicates, 0);
      // Flat memory is judged on the long run (docs/reliability.md); here only a runaway fails.
      assert.ok(report.rssMb.end < report.rssMb.start + 150, `RSS ${report.rssMb.start} → ${report.rssMb.end} MB`);
    });
  });
}
