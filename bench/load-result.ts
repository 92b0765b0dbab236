// What a load generator reports for one scenario run.
export interface LoadResult {
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses outside 2xx/3xx plus socket errors and timeouts. */
  errors: number;
}

export interface LoadRun {
  baseUrl: string;
  method: 'GET' | 'POST' | 'PATCH';
  paths: string[];
  body?: 'create-post' | 'patch-views';
  authorization?: string;
  connections: number;
  seconds: number;
  /** First value of the per-request counter (bodies differ between runs too). */
  counterStart: number;
  /** CPU to pin the generator to. */
  cpu: number;
}

export interface LoadDriver {
  readonly name: string;
  run(run: LoadRun): Promise<LoadResult>;
}
