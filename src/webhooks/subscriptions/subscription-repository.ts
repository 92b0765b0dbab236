// Reads and writes svc_webhooks rows; the dialect encodes booleans, json and timestamps, and the signing
// secret is stored sealed (webhook-secret-box.ts).
import { sql } from 'kysely';
import type { Store } from '../../store/create-store.ts';
import { uuidv7 } from '../../store/uuid-v7.ts';
import type { RetryConfig } from './retry-config.ts';
import { generateWebhookSecret } from '../delivery/sign-payload.ts';
import { DELIVERIES_TABLE, WEBHOOKS_TABLE } from '../webhook-tables.ts';
import { SecretBox } from '../../tools/secret-box.ts';
import type { StoredSubscription, WebhookInput } from './webhook-subscription.ts';

export interface Page {
  limit: number;
  offset: number;
}

export class SubscriptionRepository {
  readonly #store: Store;
  readonly #secrets: SecretBox;

  constructor(store: Store, secrets: SecretBox) {
    this.#store = store;
    this.#secrets = secrets;
  }

  async all(): Promise<StoredSubscription[]> {
    const rows = await this.#store.db
      .selectFrom(WEBHOOKS_TABLE)
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => this.#decode(row));
  }

  async page(page: Page): Promise<{ items: StoredSubscription[]; total: number }> {
    const { db } = this.#store;
    const [rows, counted] = await Promise.all([
      db
        .selectFrom(WEBHOOKS_TABLE)
        .selectAll()
        .orderBy('created_at')
        .orderBy('id')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      db.selectFrom(WEBHOOKS_TABLE).select(sql<number>`count(*)`.as('total')).executeTakeFirst(),
    ]);
    return { items: rows.map((row) => this.#decode(row)), total: Number(counted?.total ?? 0) };
  }

  async find(id: string): Promise<StoredSubscription | undefined> {
    const row = await this.#store.db.selectFrom(WEBHOOKS_TABLE).selectAll().where('id', '=', id).executeTakeFirst();
    return row ? this.#decode(row) : undefined;
  }

  async insert(
    input: WebhookInput & Pick<StoredSubscription, 'name' | 'url' | 'eventPattern'>,
  ): Promise<StoredSubscription> {
    const now = new Date().toISOString();
    const subscription: StoredSubscription = {
      id: uuidv7(),
      name: input.name,
      url: input.url,
      eventPattern: input.eventPattern,
      headers: input.headers ?? null,
      enabled: input.enabled ?? true,
      retryConfig: input.retryConfig ?? null,
      fieldIds: input.fieldIds ?? null,
      secret: generateWebhookSecret(),
      createdAt: now,
      updatedAt: now,
    };
    await this.#store.db.insertInto(WEBHOOKS_TABLE).values(this.#encode(subscription)).execute();
    return subscription;
  }

  /** Applies the given changes; undefined when the subscription does not exist. */
  async update(id: string, input: WebhookInput): Promise<StoredSubscription | undefined> {
    const current = await this.find(id);
    if (!current) return undefined;
    const next: StoredSubscription = { ...current, ...input, updatedAt: new Date().toISOString() };
    const { id: _id, secret: _secret, createdAt: _createdAt, ...changed } = this.#encode(next);
    await this.#store.db.updateTable(WEBHOOKS_TABLE).set(changed).where('id', '=', id).execute();
    return next;
  }

  /** Deletes the subscription and its delivery history; false when it did not exist. */
  async delete(id: string): Promise<boolean> {
    return this.#store.db.transaction().execute(async (trx) => {
      const result = await trx.deleteFrom(WEBHOOKS_TABLE).where('id', '=', id).executeTakeFirst();
      await trx.deleteFrom(DELIVERIES_TABLE).where('webhook_id', '=', id).execute();
      return Number(result.numDeletedRows) > 0;
    });
  }

  #encode(subscription: StoredSubscription): Record<string, unknown> {
    const { encode } = this.#store.dialect;
    return {
      id: subscription.id,
      name: subscription.name,
      url: subscription.url,
      event_pattern: subscription.eventPattern,
      headers: encode('json', subscription.headers),
      enabled: encode('boolean', subscription.enabled),
      retry_config: encode('json', subscription.retryConfig),
      field_ids: encode('json', subscription.fieldIds),
      secret: this.#secrets.seal(subscription.secret, subscription.id),
      created_at: encode('timestamp', subscription.createdAt),
      updated_at: encode('timestamp', subscription.updatedAt),
    };
  }

  /** A clear secret is one an older version stored during a rolling upgrade; the next start seals it. */
  #openSecret(id: string, stored: string): string {
    if (!SecretBox.isSealed(stored)) return stored;
    const opened = this.#secrets.open(stored, id);
    if (!opened) throw new Error(`the signing secret of webhook ${id} cannot be decrypted with SVC_SECRET`);
    return opened.plain;
  }

  #decode(row: Record<string, unknown>): StoredSubscription {
    const { decode } = this.#store.dialect;
    return {
      id: String(row.id),
      name: String(row.name),
      url: String(row.url),
      eventPattern: String(row.event_pattern),
      headers: decode('json', row.headers) as Record<string, string> | null,
      enabled: decode('boolean', row.enabled) === true,
      retryConfig: decode('json', row.retry_config) as RetryConfig | null,
      fieldIds: decode('json', row.field_ids) as string[] | null,
      secret: this.#openSecret(String(row.id), String(row.secret)),
      createdAt: decode('timestamp', row.created_at) as string,
      updatedAt: decode('timestamp', row.updated_at) as string,
    };
  }
}
