// One read for everyone who asks for it in the same event-loop pass, sent once the pass is over. Used
// for the change mark (pg_current_snapshot()) that a cached list checks before it is reused: under
// load several lists arrive per pass, and each mark was a round trip of its own, whose client side
// (pool hand-off, a socket write that wakes a server process, parsing the answer) cost more of this
// process's CPU than reusing the page. Sent after the pass, the read starts after every caller of the
// pass asked, so none gets a snapshot older than its own request: what committed before a request
// arrived is in the mark it gets. A caller of a later pass never joins a read already sent.
interface Waiting<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export class PassSharedRead<K, T> {
  readonly #read: (key: K) => Promise<T>;
  #pending = new Map<K, Waiting<T>>();

  constructor(read: (key: K) => Promise<T>) {
    this.#read = read;
  }

  /** What `read(key)` answers, read once after this pass for every caller of the pass with this key. */
  get(key: K): Promise<T> {
    const waiting = this.#pending.get(key);
    if (waiting) return waiting.promise;
    if (this.#pending.size === 0) setImmediate(() => this.#flush());
    // Promise.withResolvers is Node 22 and later.
    let resolve!: (value: T) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<T>((ok, fail) => {
      resolve = ok;
      reject = fail;
    });
    this.#pending.set(key, { promise, resolve, reject });
    return promise;
  }

  #flush(): void {
    const due = this.#pending;
    this.#pending = new Map();
    for (const [key, waiting] of due) this.#read(key).then(waiting.resolve, waiting.reject);
  }
}
