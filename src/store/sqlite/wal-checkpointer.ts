// Copies the write-ahead log back into the database file on a worker thread. SQLite's automatic
// checkpoint runs inside the commit that crosses its threshold, on the request's thread, with an fsync:
// measured here it was more than half of an average commit (130 -> 60 µs for a row with 7 indexes).
// The worker runs a PASSIVE checkpoint (it never blocks readers or writers) every interval on its own
// connection; the main connection keeps a far higher automatic threshold as a backstop, so the log
// still cannot grow without bound if the worker stops (it stops at its first failure, reported once).
//
// A checkpoint alone does not shrink the log: SQLite starts writing it from the beginning again only
// when a write begins after every frame has been copied. Under steady writes the worker never catches
// up at that moment, so the log grew until the backstop checkpointed 40 MB inside one commit, and
// every read searched a long log. So once the log passes RESET_PAGES, the worker says so, and the
// writer (group-commit.ts) holds its next write until one more checkpoint has copied everything:
// that write then restarts the log.
import { Worker } from 'node:worker_threads';
import { sqliteDriverPath } from './sqlite-driver.ts';

/** Pages in the log before a commit checkpoints on its own (the backstop): 40 MB at 4 KB pages. */
export const BACKSTOP_AUTOCHECKPOINT_PAGES = 10_000;
/** Pages in the log past which the writer waits for a full checkpoint so that the log restarts: 4 MB. */
export const RESET_PAGES = 1_000;
const DEFAULT_INTERVAL_MS = 100;

// CommonJS, so the worker needs no loader and no file of its own beside the bundle.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
// A checkpoint copies frames through a buffer of its own, not this connection's page cache.
db.pragma('cache_size = -256');
const checkpoint = db.prepare('pragma wal_checkpoint(PASSIVE)');
let failed = false;
/** Copies what it can; answers the log's size in pages and how many of them are now in the main file. */
function run() {
  if (failed) return { log: -1, checkpointed: -1 };
  try {
    const [result] = checkpoint.all();
    return { log: result.log, checkpointed: result.checkpointed };
  } catch (error) {
    // Said once, then left to the backstop: a failure that repeats every interval would flood the log.
    failed = true;
    clearInterval(timer);
    parentPort.postMessage({ error: String(error && error.message || error) });
    return { log: -1, checkpointed: -1 };
  }
}
const timer = setInterval(() => {
  const { log } = run();
  if (log > workerData.resetPages) parentPort.postMessage({ long: log });
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'checkpoint') {
    parentPort.postMessage({ checkpointed: run() });
    return;
  }
  clearInterval(timer);
  try { checkpoint.run(); } catch {}
  db.close();
  parentPort.close();
});
`;

export interface WalCheckpointer {
  /**
   * A promise when the log has grown past RESET_PAGES: it settles once a checkpoint has copied every
   * frame written so far, so that a write begun after it restarts the log. Otherwise undefined.
   */
  catchUp(): Promise<void> | undefined;
  stop(): Promise<void>;
}

interface WorkerMessage {
  error?: string;
  long?: number;
  checkpointed?: { log: number; checkpointed: number };
}

export function startWalCheckpointer(
  path: string,
  options: { intervalMs?: number; resetPages?: number; onError?: (message: string) => void } = {},
): WalCheckpointer {
  const driver = sqliteDriverPath;
  const resetPages = options.resetPages ?? RESET_PAGES;
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { path, driver, resetPages, intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS },
  });
  let long = false;
  let running = true;
  let waiting: (() => void)[] = [];
  const settle = () => {
    const resolves = waiting;
    waiting = [];
    if (resolves.length > 0 && running) worker.unref();
    for (const resolve of resolves) resolve();
  };
  // A failure in the thread must not take the process down: the backstop threshold still checkpoints
  // on the main connection.
  worker.on('message', (message: WorkerMessage) => {
    if (message.error) {
      running = false;
      options.onError?.(message.error);
    }
    if (message.long !== undefined) long = true;
    if (message.checkpointed) {
      // A checkpoint that could not copy everything (a reader on an old snapshot) is not retried at
      // once: the writer goes on, and the next report asks again.
      long = false;
      settle();
    }
  });
  worker.on('error', (error) => {
    running = false;
    options.onError?.(error.message);
  });
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      running = false;
      settle();
      resolve();
    }),
  );
  // The thread must not keep the process alive. After the listeners: adding a 'message' one refs it again.
  worker.unref();
  return {
    catchUp() {
      if (!long || !running) return undefined;
      const done = new Promise<void>((resolve) => waiting.push(resolve));
      if (waiting.length === 1) {
        // A writer is waiting on the answer: the process must not exit meanwhile.
        worker.ref();
        worker.postMessage('checkpoint');
      }
      return done;
    },
    async stop() {
      // Held while it finishes, or a process with nothing else to do would exit before close returns.
      running = false;
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
