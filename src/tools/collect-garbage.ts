// Garbage collections svc asks V8 for at two moments where V8's own timing costs memory.
//
// Uploads: socket reads land in Buffers whose bytes live outside V8's heap. Streaming a large upload
// creates little JavaScript garbage per chunk, so young-generation collections are rare, and V8 (12 and
// later, Node 22+) frees those dead buffers only once about 64 MB of them have piled up: a 200 MB upload
// then grew the process by 40-58 MB on Node 24 although it held no more than a few chunks at a time. A
// minor collection every few MB streamed frees them as they die; it costs well under a millisecond
// because the young generation is small and nearly all dead.
//
// Start: loading the service's modules leaves about 20 MB of garbage, and building the app (schemas
// compiled, routes registered) more; V8 let the old generation grow to 56-73 MB before its first full
// collection, and the pages it touched count in the process's peak memory for good. Full collections
// while svc starts keep the peak near what survives: 141-147 -> 115-125 MB at the start of the example
// config, for 10-40 ms each, about 100 ms in all.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options?: { type: 'minor'; execution: 'sync' }) => void;

let collect: Collect | undefined | null;

function collector(): Collect | null {
  if (collect !== undefined) return collect;
  try {
    // `gc` is exposed for a fresh context only; the flag does not touch the running one's globals.
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as Collect;
  } catch {
    collect = null;
  }
  return collect;
}

/** Asks for a minor collection; a no-op where the runtime does not offer it. */
export function collectYoungGarbage(): void {
  collector()?.({ type: 'minor', execution: 'sync' });
}

/** Asks for a full collection; a no-op where the runtime does not offer it. */
export function collectAllGarbage(): void {
  // Without options: Node 20's V8 reads any options object as a minor collection, `type: 'major'` included.
  collector()?.();
}

/** Between two awaited steps of a start, this often at most. */
const STARTING_INTERVAL_MS = 100;

/**
 * Runs a full collection whenever the event loop is free between the steps of `start` (at most every
 * 100 ms), and once when it is done, so that what starting leaves behind never piles up.
 */
export async function collectWhileStarting<T>(start: () => Promise<T>): Promise<T> {
  const full = collector();
  if (!full) return start();
  const timer = setInterval(() => full(), STARTING_INTERVAL_MS);
  try {
    return await start();
  } finally {
    clearInterval(timer);
    full();
  }
}
