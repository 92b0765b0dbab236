// Readiness for /readyz: not while the app is closing, and only when the database answers and every
// table the service uses exists (a database restored from an old backup, or reset, is not ready).
import { sql } from 'kysely';
import type { Store } from '../../store/create-store.ts';
import { findMissingTables } from '../../store/find-missing-tables.ts';
import { IDENTITY_TABLES } from '../../auth/identity/identity-tables.ts';
import { API_KEY_TABLE } from '../../auth/keys/api-key-table.ts';
import { ADMIN_TOKEN_TABLE } from '../../auth/admin/admin-token-table.ts';
import { EVENTS_TABLE } from '../../events/outbox.ts';
import { DELIVERIES_TABLE, WEBHOOKS_TABLE } from '../../webhooks/webhook-tables.ts';

export interface Readiness {
  status: 'ready' | 'unavailable' | 'closing';
  database: 'ok' | 'unreachable' | 'unknown';
  migrations: 'applied' | 'missing' | 'unknown';
  /** Tables that should exist and do not. */
  missingTables?: string[];
}

export class ReadinessProbe {
  readonly #store: Store;
  readonly #tables: () => readonly string[];
  #closing = false;

  constructor(store: Store, tables: () => readonly string[]) {
    this.#store = store;
    this.#tables = tables;
  }

  /** From the start of shutdown on, the probe fails, so a load balancer stops sending new requests. */
  markClosing(): void {
    this.#closing = true;
  }

  async check(): Promise<{ readiness: Readiness; cause?: unknown }> {
    if (this.#closing) return { readiness: { status: 'closing', database: 'unknown', migrations: 'unknown' } };
    try {
      await sql`select 1`.execute(this.#store.db);
    } catch (cause) {
      return { readiness: { status: 'unavailable', database: 'unreachable', migrations: 'unknown' }, cause };
    }
    let missing: string[];
    try {
      missing = await findMissingTables(this.#store, this.#tables());
    } catch (cause) {
      return { readiness: { status: 'unavailable', database: 'unreachable', migrations: 'unknown' }, cause };
    }
    // Checked again: shutdown may have begun while the database answered.
    if (this.#closing)
      return {
        readiness: { status: 'closing', database: 'ok', migrations: missing.length === 0 ? 'applied' : 'missing' },
      };
    if (missing.length > 0)
      return { readiness: { status: 'unavailable', database: 'ok', migrations: 'missing', missingTables: missing } };
    return { readiness: { status: 'ready', database: 'ok', migrations: 'applied' } };
  }
}

/** Every table the service reads or writes: the resources' and its own (identity, keys, outbox, webhooks). */
export function serviceTables(resourceTables: readonly string[]): string[] {
  return [
    ...resourceTables,
    ...Object.values(IDENTITY_TABLES),
    API_KEY_TABLE,
    ADMIN_TOKEN_TABLE,
    EVENTS_TABLE,
    WEBHOOKS_TABLE,
    DELIVERIES_TABLE,
  ];
}
