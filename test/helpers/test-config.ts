// A complete configuration for tests: the contract's defaults, a given database and resources.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResourceDefinition, SvcConfig } from '../../src/config/config-types.ts';
import { loadConfigFromObject } from '../../src/resources/config-loader.ts';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export type ConfigOverrides = Partial<Omit<SvcConfig, 'resources'>> & {
  resources?: Record<string, ResourceDefinition>;
};

export function testConfig(databaseUrl: string, overrides: ConfigOverrides = {}): SvcConfig {
  const base: SvcConfig = {
    database: { url: databaseUrl },
    server: { port: 0, host: '127.0.0.1', cors: { origins: ['http://localhost:5173'] }, bodyLimitBytes: 1048576 },
    adminToken: TEST_ADMIN_TOKEN,
    auth: {
      basePath: '/auth',
      requireEmailVerification: false,
      defaultRole: 'user',
      social: {},
      email: { from: 'svc <no-reply@localhost>' },
      // The browser app allowed by CORS above also signs in with cookies.
      trustedOrigins: ['http://localhost:5173'],
      // Suites sign up many users from one address; the sign-up throttle's own tests set a low limit.
      signUpThrottle: { enabled: true, maxPerAddress: 1000000, windowMs: 3600000 },
    },
    // Suites send many requests with one key; the rate-limit suite sets its own limits.
    apiKeys: { rateLimit: { enabled: true, max: 1000000, timeWindow: 60000 } },
    stream: { heartbeatMs: 30000, retryMs: 3000, allowQueryToken: true, replayWindow: 10000 },
    webhooks: { timeoutMs: 30000, allowPrivateTargets: true, pollIntervalMs: 50 },
    dataDir: mkdtempSync(join(tmpdir(), 'svc-data-')),
    resources: BLOG_RESOURCES,
  };
  // Through the real validator, so a test can only run on a configuration svc would accept.
  return loadConfigFromObject(JSON.parse(JSON.stringify({ ...base, ...overrides })));
}

/** A small blog: every field type, a relation, soft delete, and two roles with field lists and a row filter. */
export const BLOG_RESOURCES: Record<string, ResourceDefinition> = {
  categories: {
    fields: {
      name: { type: 'string', required: true, unique: true, sortable: true, maxLength: 80 },
      description: { type: 'text' },
    },
    permissions: {
      editor: { read: true, create: true, update: true, delete: true },
      user: { read: true },
    },
  },
  posts: {
    enableSoftDelete: true,
    fields: {
      title: { type: 'string', required: true, maxLength: 200, sortable: true },
      body: { type: 'text' },
      status: { type: 'enum', values: ['draft', 'published'], default: 'draft', sortable: true },
      views: { type: 'integer', minimum: 0, default: 0, sortable: true },
      rating: { type: 'number', sortable: true },
      published: { type: 'boolean', default: false, sortable: true },
      published_at: { type: 'datetime', sortable: true },
      publish_on: { type: 'date', sortable: true },
      external_id: { type: 'uuid' },
      contact: { type: 'email' },
      source: { type: 'url' },
      tags: { type: 'json' },
      author_id: { type: 'string' },
      category_id: { type: 'relation', resource: 'categories', onDelete: 'restrict' },
    },
    permissions: {
      editor: { read: true, create: true, update: true, delete: true },
      user: {
        read: {
          fields: ['title', 'body', 'status', 'views', 'author_id', 'category_id'],
          filter: { _or: [{ status: { eq: 'published' } }, { author_id: { eq: '$userId' } }] },
        },
        create: { fields: ['title', 'body', 'status', 'category_id'], preset: { author_id: '$userId' } },
        update: { fields: ['title', 'body', 'status'], filter: { author_id: { eq: '$userId' } } },
        delete: { filter: { author_id: { eq: '$userId' } } },
      },
    },
  },
  comments: {
    fields: {
      post_id: { type: 'relation', resource: 'posts', onDelete: 'cascade', required: true },
      body: { type: 'text', required: true },
      rating: { type: 'integer', minimum: 1, maximum: 5 },
    },
    permissions: { editor: { read: true, create: true, update: true, delete: true } },
  },
};
