// The measured requests (issue 5) and their targets as a ratio of the bare Fastify route's requests/s.
import type { SeededData } from './seed.ts';

export const SCENARIO_NAMES = [
  'get-one',
  'list-50',
  'filter-sort',
  'create',
  'create-no-webhook',
  'create-hooked',
  'patch',
] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/** How the load generator builds each request's body (a counter keeps every body different). */
export type BodyKind = 'create-post' | 'patch-views';

export interface ScenarioRequest {
  method: 'GET' | 'POST' | 'PATCH';
  /** One is picked at random per request. */
  paths: string[];
  body?: BodyKind;
  /** Expected status: anything else counts as an error. */
  status: number;
}

export interface Scenario {
  name: ScenarioName;
  label: string;
  /** Minimum ratio to the ceiling's requests/s, per database; absent: no target. */
  targets: { sqlite?: number; postgres?: number };
  /** Run without the webhook subscription the other scenarios have (a comparison: what deliveries cost). */
  withoutWebhook?: boolean;
  /** Run on a svc started with a hooks file whose beforeCreate is trivial (bench-config.ts): what hooks cost a create. */
  withHooks?: boolean;
  request(data: SeededData): ScenarioRequest;
}

export const SCENARIOS: Record<ScenarioName, Scenario> = {
  'get-one': {
    name: 'get-one',
    label: 'get one by id (random ids)',
    targets: { sqlite: 0.5, postgres: 0.3 },
    request: (data) => ({ method: 'GET', paths: data.readableIds.map((id) => `/v1/posts/${id}`), status: 200 }),
  },
  'list-50': {
    name: 'list-50',
    label: 'list first 50',
    targets: { sqlite: 0.2 },
    request: () => ({ method: 'GET', paths: ['/v1/posts'], status: 200 }),
  },
  'filter-sort': {
    name: 'filter-sort',
    label: 'filter + sort + limit 50',
    targets: { sqlite: 0.15 },
    request: () => ({ method: 'GET', paths: ['/v1/posts?published=true&_sort=-views&_limit=50'], status: 200 }),
  },
  create: {
    name: 'create',
    label: 'create (+ outbox, webhook)',
    targets: { sqlite: 0.15, postgres: 0.1 },
    request: () => ({ method: 'POST', paths: ['/v1/posts'], body: 'create-post', status: 201 }),
  },
  // Not in the table: the same creates with no subscription, so every run shows what the
  // webhook path (queueing, sending, recording each delivery) adds to a create on svc's one core.
  'create-no-webhook': {
    name: 'create-no-webhook',
    label: 'create, no webhook subscription',
    targets: {},
    withoutWebhook: true,
    request: () => ({ method: 'POST', paths: ['/v1/posts'], body: 'create-post', status: 201 }),
  },
  // Not in the table: the create above on a svc with a hooks file whose posts.beforeCreate does
  // almost nothing, so the row against `create` is the cost of running a hook in the write (at most 10%).
  'create-hooked': {
    name: 'create-hooked',
    label: 'create (+ outbox, webhook), trivial beforeCreate hook',
    targets: {},
    withHooks: true,
    request: () => ({ method: 'POST', paths: ['/v1/posts'], body: 'create-post', status: 201 }),
  },
  patch: {
    name: 'patch',
    label: 'patch (own rows, random ids)',
    targets: { sqlite: 0.15 },
    request: (data) => ({
      method: 'PATCH',
      paths: data.ownIds.map((id) => `/v1/posts/${id}`),
      body: 'patch-views',
      status: 200,
    }),
  },
};

/** The body of request number `n` (the same shape the wrk script builds in Lua). */
export function bodyFor(kind: BodyKind, n: number): string {
  return kind === 'create-post'
    ? `{"title":"Bench post ${n}","body":"Written by the load generator.","status":"published","views":${n % 100000},"published":true,"tags":["bench"]}`
    : `{"views":${n}}`;
}
