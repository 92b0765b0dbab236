// The frames waiting for one connection, in the order they were pushed, written together when the flush
// scheduler says (as a ViewGroup's are for its members): under load, several events share one write.
import { streamFlushes, type Flushable } from './flush-scheduler.ts';
import type { SseConnection } from './sse-connection.ts';
import { SseFrames } from './sse-frames.ts';

export class ConnectionQueue implements Flushable {
  readonly #connection: SseConnection;
  #pending: Buffer[] = [];

  constructor(connection: SseConnection) {
    this.#connection = connection;
  }

  push(frame: SseFrames): void {
    this.#pending.push(frame.bytes);
    if (this.#pending.length === 1) streamFlushes.schedule(this);
  }

  flush(): number {
    const pending = this.#pending;
    if (pending.length === 0) return 0;
    this.#pending = [];
    streamFlushes.forget(this);
    this.#connection.sendFrames(
      new SseFrames(pending.length === 1 ? pending[0]! : Buffer.concat(pending), pending.length),
    );
    return 1;
  }

  /** The connection has closed: nothing queued is written. */
  discard(): void {
    this.#pending = [];
    streamFlushes.forget(this);
  }
}
