// The timeouts and the shutdown of a worker's HTTP exchanges in flight. Every exchange has the same
// timeout, so their deadlines fall in the order they began: one timer, armed for the oldest exchange
// still open, serves them all, and one call stops them all. Under load a timer and an abort listener
// per delivery were a tenth of what stayed alive across each young-generation collection (it copies
// what is alive, and promotes what stays), for nothing a shared clock cannot do.

/** An open exchange: when it times out, and how it is stopped (its `SendResult` is then the argument). */
export interface OpenExchange<R> {
  readonly deadline: number;
  readonly stop: (result: R) => void;
}

export class ExchangeClock<R> {
  readonly #timeoutMs: number;
  readonly #timedOut: () => R;
  readonly #aborted: R;
  /** Oldest first: a Set keeps insertion order, and deletes in any order. */
  readonly #open = new Set<OpenExchange<R>>();
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  /** `timedOut` makes the result of an exchange that ran out of time; `aborted`, of one stopped by `abortAll`. */
  constructor(timeoutMs: number, results: { timedOut: () => R; aborted: R }) {
    this.#timeoutMs = timeoutMs;
    this.#timedOut = results.timedOut;
    this.#aborted = results.aborted;
  }

  /** True once `abortAll` ran: new exchanges are not begun. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Starts the clock of an exchange that begins now; `close` it once it settles. */
  open(stop: (result: R) => void): OpenExchange<R> {
    const exchange = { deadline: Date.now() + this.#timeoutMs, stop };
    this.#open.add(exchange);
    if (this.#timer === undefined) this.#arm(this.#timeoutMs);
    return exchange;
  }

  close(exchange: OpenExchange<R>): void {
    this.#open.delete(exchange);
    if (this.#open.size === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  /** Stops every open exchange with the aborted result, and every later one before it begins. */
  abortAll(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const open = [...this.#open];
    this.#open.clear();
    for (const exchange of open) exchange.stop(this.#aborted);
  }

  #arm(delayMs: number): void {
    clearTimeout(this.#timer);
    // Unreferenced: an exchange's own socket or lookup keeps the process alive while it is open.
    this.#timer = setTimeout(() => this.#expire(), Math.max(delayMs, 0));
    this.#timer.unref();
  }

  #expire(): void {
    this.#timer = undefined;
    const now = Date.now();
    for (const exchange of this.#open) {
      if (exchange.deadline > now) {
        this.#arm(exchange.deadline - now);
        return;
      }
      this.#open.delete(exchange);
      exchange.stop(this.#timedOut());
    }
  }
}
