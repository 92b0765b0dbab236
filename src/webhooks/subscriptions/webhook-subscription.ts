// A webhook subscription (docs/admin-api.md, Webhooks) as stored, and the writable part of it an admin sends.
import type { RetryConfig } from './retry-config.ts';

export interface WebhookSubscription {
  id: string;
  name: string;
  url: string;
  eventPattern: string;
  headers: Record<string, string> | null;
  enabled: boolean;
  retryConfig: RetryConfig | null;
  fieldIds: string[] | null;
  createdAt: string;
  updatedAt: string;
}

/** The subscription with its signing secret: needed to sign, never shown after creation. */
export interface StoredSubscription extends WebhookSubscription {
  secret: string;
}

/** What an admin may set on create (required: name, url, eventPattern) or change on update. */
export type WebhookInput = Partial<
  Pick<WebhookSubscription, 'name' | 'url' | 'eventPattern' | 'headers' | 'enabled' | 'retryConfig' | 'fieldIds'>
>;
