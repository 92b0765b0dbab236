// One open SSE response: preamble, heartbeats, messages, and a bound on what may pile up in memory
// for a client that does not read. Such a client is disconnected; it resumes with Last-Event-ID.
//
// Once the head is out, messages go straight to the socket, framed as HTTP/1.1 chunks here, one write
// of a Buffer shared by every client of a view. Through ServerResponse.write each message would cost
// four socket writes, a cork and a deferred writev per client; with 1,000 clients that overhead, not
// the bytes, was most of the fan-out's time. ServerResponse still writes the head and the last chunk.
import type { ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { SseFrames } from './sse-frames.ts';
import { formatSseComment, formatSseMessage, formatSsePreamble, type SseMessage } from './sse-format.ts';

export interface SseConnectionOptions {
  retryMs: number;
  heartbeatMs: number;
  /** Messages written while the socket is not draining before the client is dropped. */
  maxQueuedMessages: number;
  /** Bytes waiting in the response's buffer before the client is dropped. */
  maxQueuedBytes: number;
}

export type SseCloseReason = 'client' | 'server' | 'overflow';

/** Every connection's heartbeat is the same bytes. */
const HEARTBEAT = SseFrames.of(formatSseComment('heartbeat'));

export class SseConnection {
  readonly #response: ServerResponse;
  readonly #options: SseConnectionOptions;
  readonly #onClosed: ((reason: SseCloseReason) => void)[] = [];
  /** The socket written directly once the head is out; null: write through the response (no socket of ours). */
  #socket: Socket | null = null;
  /** Whether the body is chunked (HTTP/1.1), so direct writes must be framed as chunks. */
  #chunked = false;
  #heartbeat: NodeJS.Timeout | null = null;
  /** Messages written since the socket last asked us to wait for 'drain'. */
  #queuedMessages = 0;
  #waitingForDrain = false;
  #closed = false;
  readonly #drained = () => {
    this.#waitingForDrain = false;
    this.#queuedMessages = 0;
  };

  constructor(response: ServerResponse, options: SseConnectionOptions) {
    this.#response = response;
    this.#options = options;
    response.once('close', () => this.#finish('client'));
    response.on('drain', this.#drained);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Sends the status line, `headers`, the preamble, and starts the heartbeat. */
  open(headers: Record<string, string | number | string[]>): void {
    this.#response.writeHead(200, headers);
    // Through the response: this write sends the head and settles whether the body is chunked.
    this.#write(SseFrames.of(formatSsePreamble(this.#options.retryMs)));
    const { socket } = this.#response;
    // A response not yet given its socket (a pipelined request), or a test double, keeps the response path.
    if (!this.#closed && socket instanceof Socket && !socket.destroyed) {
      this.#socket = socket;
      this.#chunked = this.#response.chunkedEncoding;
      socket.on('drain', this.#drained);
    }
    this.#heartbeat = setInterval(() => this.#write(HEARTBEAT), this.#options.heartbeatMs);
    this.#heartbeat.unref();
  }

  send(message: SseMessage): void {
    this.#write(SseFrames.of(formatSseMessage(message)));
  }

  /** Writes messages formatted once for every client that receives them. */
  sendFrames(frames: SseFrames): void {
    this.#write(frames);
  }

  /** Ends the stream from our side with a last reconnection hint (server shutdown). */
  close(): void {
    if (this.#closed) return;
    this.#write(SseFrames.of(formatSseMessage({ retry: this.#options.retryMs })));
    this.#finish('server');
    this.#response.end();
  }

  /** Sends `message` as the stream's last, then closes it (a revoked stream says why before it ends). */
  closeWith(message: SseMessage): void {
    if (this.#closed) return;
    this.send(message);
    this.close();
  }

  onClosed(callback: (reason: SseCloseReason) => void): void {
    if (this.#closed) callback('client');
    else this.#onClosed.push(callback);
  }

  #write(frames: SseFrames): void {
    if (this.#closed) return;
    const socket = this.#socket;
    const accepted = socket
      ? socket.write(this.#chunked ? frames.chunk : frames.bytes)
      : this.#response.write(frames.bytes);
    if (!accepted || this.#waitingForDrain) {
      this.#waitingForDrain = true;
      this.#queuedMessages += frames.count;
    }
    // The response's length includes its socket's buffer.
    if (
      this.#queuedMessages > this.#options.maxQueuedMessages ||
      this.#response.writableLength > this.#options.maxQueuedBytes
    ) {
      // The client is not keeping up: drop it rather than buffer without bound.
      this.#finish('overflow');
      this.#response.destroy();
    }
  }

  #finish(reason: SseCloseReason): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
    // The socket may outlive this response (keep-alive after close()): leave nothing on it.
    this.#socket?.off('drain', this.#drained);
    for (const callback of this.#onClosed.splice(0)) callback(reason);
  }
}
