// The request counter's and duration histogram's series for one method, route and status, resolved on
// first use and kept: naming the labels on every request (checking, joining them) showed in profiles.
import type { CounterSeries } from './counter.ts';
import type { HistogramSeries } from './histogram.ts';
import type { ServiceMetrics } from './service-metrics.ts';

export interface RequestSeriesPair {
  requests: CounterSeries;
  duration: HistogramSeries;
}

export class RequestSeries {
  readonly #metrics: Pick<ServiceMetrics, 'requests' | 'requestDuration'>;
  // As many entries as the series themselves: methods × route patterns × statuses.
  readonly #byLabels = new Map<string, RequestSeriesPair>();

  constructor(metrics: Pick<ServiceMetrics, 'requests' | 'requestDuration'>) {
    this.#metrics = metrics;
  }

  of(method: string, route: string, status: number): RequestSeriesPair {
    // A NUL cannot occur in a method or route pattern, so the key is unambiguous.
    const key = `${method}\u0000${route}\u0000${status}`;
    let pair = this.#byLabels.get(key);
    if (!pair) {
      pair = {
        requests: this.#metrics.requests.series({ method, route, status }),
        duration: this.#metrics.requestDuration.series({ method, route }),
      };
      this.#byLabels.set(key, pair);
    }
    return pair;
  }
}
