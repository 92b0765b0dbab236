// Copies the write-ahead log back into the database file on a worker thread. SQLite's automatic
// checkpoint runs inside the commit that crosses its threshold, on the request's thread, with an fsync:
// measured here it was more than half of an average commit (130 -> 60 µs for a row with 7 indexes).
// The worker runs a PASSIVE checkpoint (it never blocks readers or writers) every interval on its own
// connection; the main connection keeps a far higher automatic threshold as a backstop, so the log
// still cannot grow without bound if the worker stops (it stops at its first failure, reported once).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Pages in the log before a commit checkpoints on its own (the backstop): 40 MB at 4 KB pages. */
export const BACKSTOP_AUTOCHECKPOINT_PAGES = 10_000;
const DEFAULT_INTERVAL_MS = 100;

// CommonJS, so the worker needs no loader and no file of its own beside the bundle.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
const checkpoint = db.prepare('pragma wal_checkpoint(PASSIVE)');
const timer = setInterval(() => {
  try {
    checkpoint.run();
  } catch (error) {
    // Said once, then left to the backstop: a failure that repeats every interval would flood the log.
    clearInterval(timer);
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  try { checkpoint.run(); } catch {}
  db.close();
  parentPort.close();
});
`;

export interface WalCheckpointer {
  stop(): Promise<void>;
}

export function startWalCheckpointer(path: string, options: { intervalMs?: number; onError?: (message: string) => void } = {}): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver, intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS } });
  // A failure in the thread must not take the process down: the backstop threshold still checkpoints
  // on the main connection.
  worker.on('message', (message: { error?: string }) => {
    if (message.error) options.onError?.(message.error);
  });
  worker.on('error', (error) => options.onError?.(error.message));
  // The thread must not keep the process alive. After the listeners: adding a 'message' one refs it again.
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      // Held while it finishes, or a process with nothing else to do would exit before close returns.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
