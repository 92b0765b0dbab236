// `npm run soak -- [--seconds N] [--clients N] [--writers N] [--readers N]`: the soak for minutes, on a
// temporary SQLite file, or on PostgreSQL when SOAK_DATABASE_URL is set (a fresh database is made in it).
import { parseArgs } from 'node:util';
import { createTestDatabase } from '../helpers/test-databases.ts';
import { runSoak } from './soak-run.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '180' },
    clients: { type: 'string', default: '50' },
    writers: { type: 'string', default: '4' },
    readers: { type: 'string', default: '4' },
  },
});
if (process.env.SOAK_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.SOAK_DATABASE_URL;
const database = await createTestDatabase(process.env.SOAK_DATABASE_URL ? 'postgres' : 'sqlite');
try {
  const report = await runSoak({
    databaseUrl: database.url,
    seconds: Number(values.seconds),
    streamClients: Number(values.clients),
    writers: Number(values.writers),
    readers: Number(values.readers),
    progress: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  const clean =
    Object.keys(report.failures).length === 0 &&
    report.streamMissing +
      report.streamDuplicates +
      report.streamMismatch +
      report.webhookMissing +
      report.webhookDuplicates ===
      0;
  process.stdout.write(
    clean ? 'audit: every event reached every stream client and the receiver exactly once\n' : 'audit: FAILED\n',
  );
  process.exitCode = clean ? 0 : 1;
} finally {
  await database.drop();
}
