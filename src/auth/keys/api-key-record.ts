// An API key as the service sees it (spec 2.1), decoded from its row. Never carries the secret or its hash.
import type { StoreDialect } from '../../store/store-dialect.ts';
import type { KeyPermissions } from '../../model/principal.ts';
import { API_KEY_COLUMNS, type ApiKeyColumn } from './api-key-table.ts';

export interface ApiKeyRecord {
  id: string;
  name: string | null;
  prefix: string;
  start: string;
  userId: string;
  enabled: boolean;
  permissions: KeyPermissions | null;
  metadata: Record<string, unknown> | null;
  expiresAt: string | null;
  rateLimitEnabled: boolean;
  rateLimitMax: number | null;
  rateLimitTimeWindow: number | null;
  refillInterval: number | null;
  refillAmount: number | null;
  requestCount: number;
  remaining: number | null;
  lastRequest: string | null;
  lastRefillAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** The web console's own key: ends when unused for a while, and is hidden from key lists unless asked for. */
  console: boolean;
}

/** Every column but the hash: what reads select, so the hash never leaves the database by accident. */
export const API_KEY_PUBLIC_COLUMNS = (Object.keys(API_KEY_COLUMNS) as ApiKeyColumn[]).filter((c) => c !== 'key_hash');

export function decodeApiKeyRow(row: Record<string, unknown>, dialect: StoreDialect): ApiKeyRecord {
  const get = (column: ApiKeyColumn): unknown => dialect.decode(API_KEY_COLUMNS[column], row[column]);
  const timestamp = (column: ApiKeyColumn): string | null => {
    const value = get(column);
    return value === null ? null : new Date(value as string).toISOString();
  };
  return {
    id: String(get('id')),
    name: (get('name') as string | null) ?? null,
    prefix: String(get('prefix')),
    start: String(get('start')),
    userId: String(get('user_id')),
    enabled: get('enabled') === true,
    permissions: (get('permissions') as KeyPermissions | null) ?? null,
    metadata: (get('metadata') as Record<string, unknown> | null) ?? null,
    expiresAt: timestamp('expires_at'),
    rateLimitEnabled: get('rate_limit_enabled') === true,
    rateLimitMax: get('rate_limit_max') as number | null,
    rateLimitTimeWindow: get('rate_limit_time_window') as number | null,
    refillInterval: get('refill_interval') as number | null,
    refillAmount: get('refill_amount') as number | null,
    requestCount: Number(get('request_count') ?? 0),
    remaining: get('remaining') as number | null,
    lastRequest: timestamp('last_request'),
    lastRefillAt: timestamp('last_refill_at'),
    createdAt: timestamp('created_at') ?? new Date(0).toISOString(),
    updatedAt: timestamp('updated_at') ?? new Date(0).toISOString(),
    console: get('console') === true,
  };
}
