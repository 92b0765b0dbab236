// Socket reads land in Buffers whose bytes live outside V8's heap. Streaming a large upload creates
// little JavaScript garbage per chunk, so young-generation collections are rare, and V8 (12 and later,
// Node 22+) frees those dead buffers only once about 64 MB of them have piled up: a 200 MB upload then
// grew the process by 40-58 MB on Node 24 although it held no more than a few chunks at a time. A
// minor collection every few MB streamed frees them as they die; it costs well under a millisecond
// because the young generation is small and nearly all dead.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options: { type: 'minor'; execution: 'sync' }) => void;

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
