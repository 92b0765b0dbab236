// One open SSE response: preamble, heartbeats, messages, and a bound on what may pile up in memory
// for a client that does not read. Such a client is disconnected; it resumes with Last-Event-ID.
import type { ServerResponse } from 'node:http';
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

export class SseConnection {
  readonly #response: ServerResponse;
  readonly #options: SseConnectionOptions;
  readonly #onClosed: ((reason: SseCloseReason) => void)[] = [];
  #heartbeat: NodeJS.Timeout | null = null;
  /** Messages written since the socket last asked us to wait for 'drain'. */
  #queuedMessages = 0;
  #waitingForDrain = false;
  #closed = false;

  constructor(response: ServerResponse, options: SseConnectionOptions) {
    this.#response = response;
    this.#options = options;
    response.once('close', () => this.#finish('client'));
    response.on('drain', () => {
      this.#waitingForDrain = false;
      this.#queuedMessages = 0;
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Sends the status line, `headers`, the preamble, and starts the heartbeat. */
  open(headers: Record<string, string | number | string[]>): void {
    this.#response.writeHead(200, headers);
    this.#write(formatSsePreamble(this.#options.retryMs));
    this.#heartbeat = setInterval(() => this.#write(formatSseComment('heartbeat')), this.#options.heartbeatMs);
    this.#heartbeat.unref();
  }

  send(message: SseMessage): void {
    this.#write(formatSseMessage(message));
  }

  /** Ends the stream from our side with a last reconnection hint (server shutdown). */
  close(): void {
    if (this.#closed) return;
    this.#write(formatSseMessage({ retry: this.#options.retryMs }));
    this.#finish('server');
    this.#response.end();
  }

  onClosed(callback: (reason: SseCloseReason) => void): void {
    if (this.#closed) callback('client');
    else this.#onClosed.push(callback);
  }

  #write(chunk: string): void {
    if (this.#closed) return;
    const accepted = this.#response.write(chunk);
    if (!accepted || this.#waitingForDrain) {
      this.#waitingForDrain = true;
      this.#queuedMessages += 1;
    }
    if (this.#queuedMessages > this.#options.maxQueuedMessages || this.#response.writableLength > this.#options.maxQueuedBytes) {
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
    for (const callback of this.#onClosed.splice(0)) callback(reason);
  }
}
