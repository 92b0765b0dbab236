// GET /metrics through the app: who may read it, what it contains, and that requests and rate-limit
// rejections are counted by route pattern, status and error code.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SERVICE_VERSION } from '../../src/metrics/service-version.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { assertHistogramsCumulative, parseExposition, sampleValue, type Family } from '../helpers/prometheus-text.ts';

/** Every family the service exposes; a scrape shows each, even before anything happened. */
const SERVICE_FAMILIES = [
  'svc_build_info',
  'svc_http_requests_total',
  'svc_http_request_duration_seconds',
  'svc_rate_limit_rejections_total',
  'svc_metrics_collector_failures_total',
  'svc_stream_connections',
  'svc_outbox_lag_seconds',
  'svc_webhook_deliveries',
  'svc_webhook_queue_depth',
  'svc_webhook_in_flight',
  'svc_webhook_oldest_pending_seconds',
  'svc_process_resident_memory_bytes',
  'svc_process_heap_used_bytes',
  'svc_process_heap_total_bytes',
  'svc_process_cpu_seconds_total',
  'svc_process_start_time_seconds',
  'svc_process_event_loop_lag_seconds',
];

async function scrape(t: TestApp): Promise<Map<string, Family>> {
  const response = await t.request({ method: 'GET', url: '/metrics', auth: t.admin });
  assert.equal(response.statusCode, 200, response.body);
  return parseExposition(response.body);
}

const requests = (families: Map<string, Family>, labels: Record<string, string>) =>
  sampleValue(families, 'svc_http_requests_total', labels) ?? 0;

const SERVER = { port: 0, host: '127.0.0.1', cors: { origins: [] }, bodyLimitBytes: 1048576 };

for (const dialect of testDialects()) {
  describe(`GET /metrics (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect);
    });
    after(() => t.close());

    it('answers only the admin token: 401 without a credential or with an unknown one, 403 for a user key', async () => {
      const scenarios = [
        { name: 'no credential', auth: undefined, status: 401, code: 'UNAUTHORIZED' },
        { name: 'an unknown key', auth: 'Bearer svc_not_a_key', status: 401, code: 'INVALID_API_KEY' },
        { name: 'a user key', auth: await t.as('user'), status: 403, code: 'FORBIDDEN' },
        { name: 'an editor key', auth: await t.as('editor'), status: 403, code: 'FORBIDDEN' },
        { name: 'the admin token', auth: t.admin, status: 200, code: undefined },
      ];
      for (const scenario of scenarios) {
        const response = await t.request({
          method: 'GET',
          url: '/metrics',
          ...(scenario.auth ? { auth: scenario.auth } : {}),
        });
        assert.equal(response.statusCode, scenario.status, `${scenario.name}: ${response.body}`);
        if (scenario.code) {
          assert.equal(response.json().errors[0].code, scenario.code, scenario.name);
          assert.doesNotMatch(response.body, /svc_http_requests_total/, `${scenario.name} sees no metric`);
        }
      }
    });

    it('serves text format 0.0.4 in which every line parses and every service metric is announced', async () => {
      const response = await t.request({ method: 'GET', url: '/metrics', auth: t.admin });
      assert.equal(response.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
      assert.ok(response.headers['x-request-id'], 'carries X-Request-Id like every response');
      const families = parseExposition(response.body);
      for (const name of SERVICE_FAMILIES) assert.ok(families.has(name), `${name} is exposed`);
      for (const name of families.keys()) assert.match(name, /^svc_/, 'every name is in the svc_ namespace');
      assert.match(SERVICE_VERSION, /^\d+\.\d+\.\d+/, 'the version comes from package.json');
      assert.equal(sampleValue(families, 'svc_build_info', { version: SERVICE_VERSION }), 1);
      assert.ok(sampleValue(families, 'svc_process_resident_memory_bytes')! > 0);
      assert.equal(sampleValue(families, 'svc_webhook_queue_depth'), 0);
      assert.equal(sampleValue(families, 'svc_stream_connections', { resource: 'posts' }), 0);
      assert.equal(sampleValue(families, 'svc_metrics_collector_failures_total'), undefined, 'no collector failed');
    });

    it('counts requests by route pattern, never by raw path, and times them in cumulative buckets', async () => {
      const editor = await t.as('editor');
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      const before = await scrape(t);
      for (const id of ids)
        assert.equal((await t.request({ method: 'GET', url: `/v1/posts/${id}`, auth: editor })).statusCode, 404);
      assert.equal((await t.request({ method: 'GET', url: '/healthz' })).statusCode, 200);
      assert.equal((await t.request({ method: 'GET', url: '/healthz' })).statusCode, 200);
      assert.equal(
        (await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title: 'counted' } })).statusCode,
        201,
      );
      assert.equal((await t.request({ method: 'GET', url: '/no/such/route' })).statusCode, 404);
      const response = await t.request({ method: 'GET', url: '/metrics', auth: t.admin });
      const now = parseExposition(response.body);

      const delta = (labels: Record<string, string>) => requests(now, labels) - requests(before, labels);
      assert.equal(delta({ method: 'GET', route: '/v1/:resource/:id', status: '404' }), 3);
      assert.equal(delta({ method: 'GET', route: '/healthz', status: '200' }), 2);
      assert.equal(delta({ method: 'POST', route: '/v1/:resource', status: '201' }), 1);
      assert.equal(delta({ method: 'GET', route: 'unmatched', status: '404' }), 1);
      for (const id of ids) assert.ok(!response.body.includes(id), 'no record id becomes a label');
      assert.ok(!response.body.includes('/no/such/route'), 'no unmatched path becomes a label');

      const count = (f: Map<string, Family>) =>
        sampleValue(f, 'svc_http_request_duration_seconds_count', { method: 'GET', route: '/healthz' }) ?? 0;
      assert.equal(count(now) - count(before), 2);
      assert.ok(assertHistogramsCumulative(now) >= 4, 'every timed route has a cumulative histogram');
    });
  });

  describe(`GET /metrics with server.publicMetrics (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect, { server: { ...SERVER, publicMetrics: true } });
    });
    after(() => t.close());

    it('answers without a credential, and to any key', async () => {
      for (const auth of [undefined, await t.as('user')]) {
        const response = await t.request({ method: 'GET', url: '/metrics', ...(auth ? { auth } : {}) });
        assert.equal(response.statusCode, 200, response.body);
        assert.ok(parseExposition(response.body).has('svc_http_requests_total'));
      }
    });
  });

  describe(`rate-limit rejections (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect, { apiKeys: { rateLimit: { enabled: true, max: 2, timeWindow: 60000 } } });
    });
    after(() => t.close());

    it('counts a 429 by its error code, and the request by its route and status', async () => {
      const user = await t.as('user');
      const statuses: number[] = [];
      let rejected: { errors: { code: string }[] } | undefined;
      for (let i = 0; i < 3; i++) {
        const response = await t.request({ method: 'GET', url: '/v1/posts', auth: user });
        statuses.push(response.statusCode);
        if (response.statusCode === 429) rejected = response.json();
      }
      assert.deepEqual(statuses, [200, 200, 429]);
      assert.equal(rejected?.errors[0]?.code, 'RATE_LIMITED');

      const families = await scrape(t);
      assert.equal(sampleValue(families, 'svc_rate_limit_rejections_total', { code: 'RATE_LIMITED' }), 1);
      assert.equal(sampleValue(families, 'svc_rate_limit_rejections_total', { code: 'USAGE_EXCEEDED' }), undefined);
      assert.equal(requests(families, { method: 'GET', route: '/v1/:resource', status: '429' }), 1);
      assert.equal(requests(families, { method: 'GET', route: '/v1/:resource', status: '200' }), 2);
    });
  });
}
