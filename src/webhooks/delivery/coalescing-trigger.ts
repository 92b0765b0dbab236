// Runs an async task on request, folding requests together: never two runs at once, at most one run
// started per interval, and any number of requests made meanwhile cause a single further run. The
// delivery worker uses it so that one claim serves every commit of the last few milliseconds instead
// of one claim per commit.

export class CoalescingTrigger {
  readonly #run: () => Promise<void>;
  readonly #minIntervalMs: number;
  #running: Promise<void> | undefined;
  #again = false;
  #cancelScheduled: (() => void) | undefined;
  #lastStart = -Infinity;
  #stopped = false;

  /** `run` must not reject: it reports its own errors. */
  constructor(run: () => Promise<void>, minIntervalMs: number) {
    this.#run = run;
    this.#minIntervalMs = minIntervalMs;
  }

  request(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    if (this.#cancelScheduled) return;
    this.#schedule();
  }

  #schedule(): void {
    const delay = this.#lastStart + this.#minIntervalMs - performance.now();
    if (delay > 0) {
      // Timers count from the event loop's cached clock, which can lag: check again when it fires.
      const timer = setTimeout(() => this.#startWhenDue(), Math.ceil(delay));
      this.#cancelScheduled = () => clearTimeout(timer);
    } else {
      // Even when due at once, wait for the current I/O callbacks: requests from them join this run.
      const immediate = setImmediate(() => this.#start());
      this.#cancelScheduled = () => clearImmediate(immediate);
    }
  }

  /** No run starts after this; resolves when the one in progress (if any) has finished. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#cancelScheduled?.();
    this.#cancelScheduled = undefined;
    await this.#running;
  }

  #startWhenDue(): void {
    if (this.#lastStart + this.#minIntervalMs > performance.now()) this.#schedule();
    else this.#start();
  }

  #start(): void {
    this.#cancelScheduled = undefined;
    if (this.#stopped) return;
    this.#lastStart = performance.now();
    this.#again = false;
    this.#running = this.#run().finally(() => {
      this.#running = undefined;
      if (this.#again) this.request();
    });
  }
}
