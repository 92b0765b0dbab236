// The series of one metric, one per combination of label values, kept in first-seen order.

/** Label values by label name; numbers (an HTTP status) are written as their decimal text. */
export type Labels<L extends string> = Readonly<Record<L, string | number>>;

export class LabelledSeries<L extends string, S> {
  readonly labelNames: readonly L[];
  readonly #create: () => S;
  readonly #series = new Map<string, { values: string[]; state: S }>();

  constructor(labelNames: readonly L[], create: () => S) {
    this.labelNames = labelNames;
    this.#create = create;
  }

  /** The series for these labels, created on first use. Missing or unknown label names are a programming error. */
  get(labels: Labels<L>): S {
    const given = Object.keys(labels);
    if (given.length !== this.labelNames.length || this.labelNames.some((name) => !Object.hasOwn(labels, name))) {
      throw new Error(`Expected labels [${this.labelNames.join(', ')}], got [${given.join(', ')}]`);
    }
    const values = this.labelNames.map((name) => String(labels[name]));
    // A NUL cannot occur in an HTTP route, method or status, so it separates values unambiguously.
    const key = values.join('\u0000');
    let entry = this.#series.get(key);
    if (!entry) {
      entry = { values, state: this.#create() };
      this.#series.set(key, entry);
    }
    return entry.state;
  }

  entries(): IterableIterator<{ values: string[]; state: S }> {
    return this.#series.values();
  }

  get size(): number {
    return this.#series.size;
  }

  clear(): void {
    this.#series.clear();
  }
}
