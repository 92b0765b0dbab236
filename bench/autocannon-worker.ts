// Runs one autocannon measurement in its own process (so it can be pinned to a core) and prints the
// result as one JSON line. Used when wrk is not installed.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import type { LoadRun } from './load-result.ts';
import { bodyFor } from './scenarios.ts';

const load = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as LoadRun;
let counter = load.counterStart;
const headers: Record<string, string> = { accept: 'application/vnd.api+json' };
if (load.authorization) headers.authorization = load.authorization;
if (load.body) headers['content-type'] = 'application/json';

const result = await autocannon({
  url: load.baseUrl,
  connections: load.connections,
  duration: load.seconds,
  timeout: 10,
  requests: [
    {
      method: load.method,
      headers,
      setupRequest: (request: Record<string, unknown>) => {
        counter++;
        request.path =
          load.paths.length === 1 ? load.paths[0] : load.paths[Math.floor(Math.random() * load.paths.length)];
        if (load.body) request.body = bodyFor(load.body, counter);
        return request;
      },
    },
  ],
});
process.stdout.write(
  `${JSON.stringify({
    requests: result.requests.total,
    seconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  })}\n`,
);
