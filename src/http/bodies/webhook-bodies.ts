// The bodies of `POST /admin/webhooks` and `PATCH /admin/webhooks/{id}` (docs/admin-api.md, Webhooks):
// checked here, shown as the OpenAPI document's `AdminWebhookCreateBody` and `AdminWebhookUpdateBody`.
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { MAX_CUSTOM_HEADERS } from '../../webhooks/subscriptions/check-webhook-headers.ts';
import { RETRY_BOUNDS } from '../../webhooks/subscriptions/retry-config.ts';
import {
  MAX_FIELD_ID_LENGTH,
  MAX_FIELD_IDS,
  MAX_NAME_LENGTH,
  type WebhookBody,
} from '../../webhooks/subscriptions/webhook-input.ts';
import { RequestBody } from './request-body.ts';

/** The members an admin writes; a subscription's attributes show them too. */
export function webhookWritableProperties(): Record<string, JsonSchema> {
  const retry = Object.fromEntries(
    Object.entries(RETRY_BOUNDS).map(([name, bound]) => [
      name,
      { type: bound.integer ? 'integer' : 'number', minimum: bound.min, maximum: bound.max },
    ]),
  );
  return {
    name: { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH, description: 'Not blank' },
    url: {
      type: 'string',
      format: 'uri',
      description: 'http(s) target; private and loopback addresses only when the config allows them',
    },
    eventPattern: {
      type: 'string',
      description: 'Event type pattern, e.g. `posts.*` or `*`',
      examples: ['posts.created', 'posts.*', '*'],
    },
    headers: {
      type: ['object', 'null'],
      maxProperties: MAX_CUSTOM_HEADERS,
      additionalProperties: { type: 'string', maxLength: 8192 },
      description: 'Extra request headers; hop-by-hop, framing and the service’s own headers are refused',
    },
    enabled: { type: 'boolean' },
    retryConfig: {
      type: ['object', 'null'],
      properties: retry,
      additionalProperties: false,
      description: 'Missing settings take the defaults; null: the defaults',
    },
    fieldIds: {
      type: ['array', 'null'],
      maxItems: MAX_FIELD_IDS,
      items: { type: 'string', minLength: 1, maxLength: MAX_FIELD_ID_LENGTH },
      description: 'Stable field ids whose changes trigger an update event; null: every field',
    },
  };
}

export function webhookCreateSchema(): JsonSchema {
  return {
    type: 'object',
    description: 'A flat JSON object of subscription fields.',
    required: ['name', 'url', 'eventPattern'],
    properties: webhookWritableProperties(),
    additionalProperties: false,
  };
}

export function webhookUpdateSchema(): JsonSchema {
  return {
    type: 'object',
    description: 'The subscription fields to change; the others keep their values.',
    properties: webhookWritableProperties(),
    additionalProperties: false,
  };
}

export const webhookCreateBody = (): RequestBody<WebhookBody> =>
  new RequestBody<WebhookBody>({ name: 'AdminWebhookCreateBody', schema: webhookCreateSchema() });

export const webhookUpdateBody = (): RequestBody<WebhookBody> =>
  new RequestBody<WebhookBody>({ name: 'AdminWebhookUpdateBody', schema: webhookUpdateSchema() });
