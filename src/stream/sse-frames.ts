// SSE messages formatted once and written as they are to every client that receives them: the bytes,
// and the same bytes framed as one HTTP/1.1 chunk for connections written straight to their socket.

const CRLF = Buffer.from('\r\n', 'latin1');

export class SseFrames {
  readonly bytes: Buffer;
  /** Messages (or comments) in `bytes`: the unit of the per-client backlog bound. */
  readonly count: number;
  #chunk: Buffer | undefined;

  constructor(bytes: Buffer, count: number) {
    this.bytes = bytes;
    this.count = count;
  }

  static of(text: string): SseFrames {
    return new SseFrames(Buffer.from(text, 'utf8'), 1);
  }

  /** `bytes` as a chunk of a `Transfer-Encoding: chunked` body; built on first use, then shared. */
  get chunk(): Buffer {
    this.#chunk ??= Buffer.concat([Buffer.from(`${this.bytes.length.toString(16)}\r\n`, 'latin1'), this.bytes, CRLF]);
    return this.#chunk;
  }
}
