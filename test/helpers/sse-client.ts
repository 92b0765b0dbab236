// A Server-Sent Events client over a real socket (node:http) for tests: parses the stream into
// messages as a browser's EventSource would see them, keeping comments and `retry` too.
import http from 'node:http';

export interface SseBlock {
  event?: string;
  /** Data lines joined with "\n", as EventSource does. */
  data?: string;
  /** Present when the block had an `id` field ('' when it cleared the id). */
  id?: string;
  retry?: number;
  comments: string[];
  raw: string;
}

export interface SseConnectOptions {
  headers?: Record<string, string>;
  /** Bound on waiting for the response head. */
  timeoutMs?: number;
}

export class SseClient {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly blocks: SseBlock[] = [];
  /** Resolves when the server or the network ends the response. */
  readonly ended: Promise<void>;
  readonly #request: http.ClientRequest;
  readonly #response: http.IncomingMessage;
  #buffer = '';
  #waiters: (() => void)[] = [];
  #ended = false;

  private constructor(request: http.ClientRequest, response: http.IncomingMessage) {
    this.#request = request;
    this.#response = response;
    this.status = response.statusCode ?? 0;
    this.headers = response.headers;
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => this.#feed(chunk));
    this.ended = new Promise((resolve) => {
      const done = () => {
        this.#ended = true;
        this.#wake();
        resolve();
      };
      response.once('end', done);
      response.once('close', done);
      response.once('error', done);
      request.once('error', done);
    });
  }

  static connect(url: string, options: SseConnectOptions = {}): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const request = http.get(url, { headers: { accept: 'text/event-stream', ...options.headers } });
      const timer = setTimeout(() => {
        request.destroy();
        reject(new Error(`no response from ${new URL(url).pathname} within ${options.timeoutMs ?? 5000} ms`));
      }, options.timeoutMs ?? 5000);
      request.once('response', (response) => {
        clearTimeout(timer);
        resolve(new SseClient(request, response));
      });
      request.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  }

  get isEnded(): boolean {
    return this.#ended;
  }

  /** Blocks that carry an event (an `event` or `data` field). */
  get events(): SseBlock[] {
    return this.blocks.filter((b) => b.event !== undefined || b.data !== undefined);
  }

  /** The whole body of a non-stream answer (an error document). */
  async body(): Promise<string> {
    await this.ended;
    return this.#buffer + this.blocks.map((b) => b.raw).join('');
  }

  /** Waits for a block matching `match` at index `from` or later; returns it. */
  async waitFor(
    match: (block: SseBlock) => boolean,
    options: { from?: number; timeoutMs?: number; what?: string } = {},
  ): Promise<SseBlock> {
    const deadline = Date.now() + (options.timeoutMs ?? 3000);
    for (;;) {
      const found = this.blocks.slice(options.from ?? 0).find(match);
      if (found) return found;
      if (this.#ended) throw new Error(`stream ended before ${options.what ?? 'the expected message'}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `timed out waiting for ${options.what ?? 'a message'}; got ${JSON.stringify(this.blocks.map((b) => b.raw))}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits until `count` event blocks have arrived; returns them. */
  async waitForEvents(count: number, timeoutMs = 3000): Promise<SseBlock[]> {
    await this.waitFor(() => this.events.length >= count, { timeoutMs, what: `${count} events` });
    return this.events.slice(0, count);
  }

  /** Stops reading from the socket (the server's writes back up). */
  pause(): void {
    this.#response.pause();
    // Let the kernel buffers fill too: without this, Node keeps reading into its own memory.
    this.#response.socket?.pause();
  }

  close(): void {
    this.#request.destroy();
  }

  #feed(chunk: string): void {
    this.#buffer += chunk;
    for (;;) {
      const end = this.#buffer.search(/\r?\n\r?\n/);
      if (end < 0) break;
      const separator = /\r?\n\r?\n/.exec(this.#buffer.slice(end))![0]!;
      const raw = this.#buffer.slice(0, end + separator.length);
      this.#buffer = this.#buffer.slice(end + separator.length);
      this.blocks.push(parseBlock(raw));
    }
    this.#wake();
  }

  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }
}

function parseBlock(raw: string): SseBlock {
  const block: SseBlock = { comments: [], raw };
  const data: string[] = [];
  for (const line of raw.split(/\r?\n/)) {
    if (line === '') continue;
    if (line.startsWith(':')) {
      block.comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (name === 'event') block.event = value;
    else if (name === 'data') data.push(value);
    else if (name === 'id') block.id = value;
    else if (name === 'retry') block.retry = Number(value);
  }
  if (data.length > 0) block.data = data.join('\n');
  return block;
}
