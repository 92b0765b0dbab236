// Per-target concurrency: at most `perTarget` requests in flight to one host:port, so one slow receiver
// occupies only its own slots and never those of other targets.

interface Waiter {
  grant(): void;
}

export class TargetLimiter {
  readonly #perTarget: number;
  readonly #running = new Map<string, number>();
  readonly #waiting = new Map<string, Waiter[]>();

  constructor(perTarget: number) {
    this.#perTarget = perTarget;
  }

  /** A release function when a slot for the target is free now, else undefined (then `acquire` waits for one). */
  tryAcquire(target: string): (() => void) | undefined {
    const running = this.#running.get(target) ?? 0;
    if (running >= this.#perTarget) return undefined;
    this.#running.set(target, running + 1);
    return this.#releaser(target);
  }

  /** Resolves with a release function once a slot for the target is free; rejects when `signal` aborts first. */
  acquire(target: string, signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(new Error('aborted'));
    const now = this.tryAcquire(target);
    if (now) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const queue = this.#waiting.get(target) ?? [];
      this.#waiting.set(target, queue);
      const onAbort = () => {
        const index = queue.indexOf(waiter);
        if (index >= 0) queue.splice(index, 1);
        if (queue.length === 0) this.#waiting.delete(target);
        reject(new Error('aborted'));
      };
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(this.#releaser(target));
        },
      };
      queue.push(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  #releaser(target: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const queue = this.#waiting.get(target);
      const next = queue?.shift();
      if (queue?.length === 0) this.#waiting.delete(target);
      // The slot passes straight to the next waiter, so the running count stays as it is.
      if (next) return next.grant();
      const running = (this.#running.get(target) ?? 1) - 1;
      if (running > 0) this.#running.set(target, running);
      else this.#running.delete(target);
    };
  }
}
