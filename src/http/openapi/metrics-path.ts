// `GET /metrics`: the Prometheus exposition (docs/reliability.md), which the web console's health view
// reads; the admin token unless `server.publicMetrics` is on.
import type { SvcConfig } from '../../config/config-types.ts';
import { ADMIN_SCHEME } from './admin-resource-paths.ts';
import { errorResponses } from './error-responses.ts';
import { headerRef, type OpenApiObject } from './openapi-refs.ts';
import { META_TAG } from './service-paths.ts';

export const METRICS_OPERATIONS = ['getMetrics'] as const;

export function metricsPaths(config: SvcConfig): Record<string, OpenApiObject> {
  const open = config.server.publicMetrics === true;
  return {
    '/metrics': {
      get: {
        tags: [META_TAG],
        operationId: 'getMetrics',
        summary: 'Service metrics in the Prometheus text format',
        description: open
          ? 'Public (`server.publicMetrics: true`).'
          : 'With the admin token (`server.publicMetrics: true` makes it public).',
        security: open ? [] : [{ [ADMIN_SCHEME]: [] }],
        responses: {
          200: {
            description:
              'Counters, gauges and histograms: requests, errors, open streams, webhook queue, outbox lag, event-loop lag, memory.',
            headers: { 'X-Request-Id': headerRef('XRequestId') },
            content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: { type: 'string' } } },
          },
          ...errorResponses(
            open ? ['INTERNAL_ERROR'] : ['UNAUTHORIZED', 'INVALID_API_KEY', 'FORBIDDEN', 'INTERNAL_ERROR'],
          ),
        },
      },
    },
  };
}
