// When many streams close at once (a network blip, a proxy restarting, a client fleet redeployed), their
// connections have lived long enough to sit in V8's old generation: about 15 KB of heap each (socket,
// request and reply, the stream's view and filter). V8 collects the old generation only once it has
// grown again by its growth limit, so the clients' reconnections pile their new connections on top of
// the dead ones. In the bench, 1,000 streams closed and 1,000 others opened grew the process by 17-19
// MB where the first 1,000 had grown it by 11-14. After a burst of closes, svc therefore asks for one
// full collection once the closing has gone quiet (tools/collect-garbage.ts has the other moments).

/** Closes within `BURST_WINDOW_MS` that make a burst. */
export const BURST_CLOSES = 200;
export const BURST_WINDOW_MS = 5_000;
/** The collection waits until no stream has closed for this long: one per burst, not one per close. */
export const QUIET_MS = 250;
/** At most one collection this often: a full collection pauses the service (10-40 ms at 50-100 MB). */
export const MIN_INTERVAL_MS = 30_000;

export class StreamExodus {
  readonly #collect: () => void;
  #windowStart = 0;
  #closes = 0;
  #burst = false;
  #lastCollection = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;

  /** `collect` runs a full garbage collection. */
  constructor(collect: () => void) {
    this.#collect = collect;
  }

  /** A stream closed. */
  closed(): void {
    const now = Date.now();
    if (now - this.#windowStart > BURST_WINDOW_MS) {
      this.#windowStart = now;
      this.#closes = 0;
    }
    this.#closes += 1;
    if (this.#closes >= BURST_CLOSES) this.#burst = true;
    if (!this.#burst) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#quiet(), Math.max(QUIET_MS, this.#lastCollection + MIN_INTERVAL_MS - now));
    this.#timer.unref();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #quiet(): void {
    this.#timer = undefined;
    this.#burst = false;
    this.#closes = 0;
    this.#lastCollection = Date.now();
    this.#collect();
  }
}
