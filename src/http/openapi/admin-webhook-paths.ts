// The admin webhook endpoints (/admin/webhooks…): subscriptions, their delivery records, redelivery
// and test pings, with the bodies the routes check (http/bodies/) and the objects webhook-documents renders.
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import { DELIVERY_STATUSES } from '../../webhooks/delivery/webhook-delivery.ts';
import type { JsonSchema } from '../../resources/field-types/index.ts';
import {
  adminOperation,
  offsetPageParameters,
  listDocument,
  nullableTimestamp,
  pathParameter,
  queryParameter,
  resourceObject,
  singleDocument,
  timestamp,
} from './admin-operation.ts';
import { BODY_CODES } from './error-responses.ts';
import { webhookCreateSchema, webhookUpdateSchema, webhookWritableProperties } from '../bodies/webhook-bodies.ts';
import type { OpenApiObject } from './openapi-refs.ts';

export const ADMIN_WEBHOOK_SCHEMAS = [
  'AdminWebhookAttributes',
  'AdminWebhookCreatedAttributes',
  'AdminWebhook',
  'AdminWebhookCreated',
  'AdminWebhookDocument',
  'AdminWebhookCreatedDocument',
  'AdminWebhookListDocument',
  'AdminWebhookCreateBody',
  'AdminWebhookUpdateBody',
  'AdminWebhookDeliveryAttributes',
  'AdminWebhookDelivery',
  'AdminWebhookDeliveryDocument',
  'AdminWebhookDeliveryListDocument',
] as const;
export const ADMIN_WEBHOOK_OPERATIONS = [
  'adminCreateWebhook',
  'adminListWebhooks',
  'adminGetWebhook',
  'adminUpdateWebhook',
  'adminDeleteWebhook',
  'adminListWebhookDeliveries',
  'adminGetWebhookDelivery',
  'adminRetryWebhookDelivery',
  'adminTestWebhook',
] as const;

// A function, not a shared object: the document stays a tree, so YAML output needs no anchors.
const uuid = (): JsonSchema => ({ type: 'string', format: 'uuid' });

function subscriptionAttributes(withSecret: boolean): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    ...webhookWritableProperties(),
    headers: { type: ['object', 'null'], additionalProperties: { type: 'string' } },
    createdAt: timestamp(),
    updatedAt: timestamp(),
  };
  if (withSecret) properties.secret = { type: 'string', description: 'The signing secret; shown only in this answer' };
  return { type: 'object', required: Object.keys(properties), properties, additionalProperties: false };
}

function deliveryAttributes(): JsonSchema {
  const nullableString = (): JsonSchema => ({ type: ['string', 'null'] });
  const properties: Record<string, JsonSchema> = {
    webhookId: uuid(),
    eventId: { type: 'string' },
    eventType: { type: 'string', examples: ['posts.created', 'webhook.ping'] },
    status: { type: 'string', enum: [...DELIVERY_STATUSES] },
    httpStatus: { type: ['integer', 'null'], description: 'The target’s answer status, once sent' },
    requestPayload: { type: 'string', description: 'The JSON body sent (or to be sent)' },
    responseBody: nullableString(),
    responseHeaders: { type: ['object', 'null'], additionalProperties: { type: 'string' } },
    error: nullableString(),
    deliveredAt: nullableTimestamp(),
    attemptNumber: { type: 'integer', minimum: 1 },
    nextRetryAt: nullableTimestamp(),
    createdAt: timestamp(),
  };
  return { type: 'object', required: Object.keys(properties), properties, additionalProperties: false };
}

export function adminWebhookSchemas(): Record<(typeof ADMIN_WEBHOOK_SCHEMAS)[number], JsonSchema> {
  const relationship: JsonSchema = {
    type: 'object',
    required: ['webhook'],
    properties: {
      webhook: {
        type: 'object',
        required: ['data'],
        properties: {
          data: {
            type: 'object',
            required: ['type', 'id'],
            properties: { type: { type: 'string', const: 'webhooks' }, id: uuid() },
          },
        },
      },
    },
  };
  return {
    AdminWebhookAttributes: subscriptionAttributes(false),
    AdminWebhookCreatedAttributes: subscriptionAttributes(true),
    AdminWebhook: resourceObject('webhooks', 'AdminWebhookAttributes', '/admin/webhooks/{id}'),
    AdminWebhookCreated: resourceObject('webhooks', 'AdminWebhookCreatedAttributes', '/admin/webhooks/{id}'),
    AdminWebhookDocument: singleDocument('AdminWebhook'),
    AdminWebhookCreatedDocument: singleDocument('AdminWebhookCreated'),
    AdminWebhookListDocument: listDocument('AdminWebhook'),
    AdminWebhookCreateBody: webhookCreateSchema(),
    AdminWebhookUpdateBody: webhookUpdateSchema(),
    AdminWebhookDeliveryAttributes: deliveryAttributes(),
    AdminWebhookDelivery: resourceObject(
      'webhook-deliveries',
      'AdminWebhookDeliveryAttributes',
      '/admin/webhooks/{id}/deliveries/{deliveryId}',
      {
        relationships: relationship,
      },
    ),
    AdminWebhookDeliveryDocument: singleDocument('AdminWebhookDelivery'),
    AdminWebhookDeliveryListDocument: listDocument('AdminWebhookDelivery'),
  };
}

export function adminWebhookPaths(): Record<string, OpenApiObject> {
  const id = () => pathParameter('id', 'Webhook id.', uuid());
  const deliveryId = () => pathParameter('deliveryId', 'Delivery id.', uuid());
  const found: ErrorCode[] = ['RESOURCE_NOT_FOUND'];
  // These take no body, but one sent is still parsed (or refused) like any other.
  const send: ErrorCode[] = ['RESOURCE_NOT_FOUND', 'CONFLICT', ...BODY_CODES];
  return {
    '/admin/webhooks': {
      post: adminOperation({
        operationId: 'adminCreateWebhook',
        summary: 'Create a webhook subscription',
        description: 'The answer carries the signing `secret`; it is never shown again.',
        body: { schema: 'AdminWebhookCreateBody', description: 'The subscription.' },
        success: {
          status: 201,
          description: 'Created, with its signing secret.',
          schema: 'AdminWebhookCreatedDocument',
          location: true,
        },
        codes: ['INVALID_RESOURCE_DATA'],
      }),
      get: adminOperation({
        operationId: 'adminListWebhooks',
        summary: 'List webhook subscriptions',
        description: 'Every subscription, oldest first, without its signing secret.',
        parameters: offsetPageParameters(),
        success: { status: 200, description: 'A page of subscriptions.', schema: 'AdminWebhookListDocument' },
        codes: ['INVALID_QUERY_PARAMS'],
      }),
    },
    '/admin/webhooks/{id}': {
      get: adminOperation({
        operationId: 'adminGetWebhook',
        summary: 'One webhook subscription',
        description: 'The subscription with its settings; the signing secret is not shown again.',
        parameters: [id()],
        success: { status: 200, description: 'The subscription.', schema: 'AdminWebhookDocument' },
        codes: found,
      }),
      patch: adminOperation({
        operationId: 'adminUpdateWebhook',
        summary: 'Change a webhook subscription',
        description: 'A new `url` also applies to its deliveries still queued.',
        parameters: [id()],
        body: { schema: 'AdminWebhookUpdateBody', description: 'The fields to change.' },
        success: { status: 200, description: 'The subscription as changed.', schema: 'AdminWebhookDocument' },
        codes: ['INVALID_RESOURCE_DATA', ...found],
      }),
      delete: adminOperation({
        operationId: 'adminDeleteWebhook',
        summary: 'Delete a webhook subscription',
        description:
          'The subscription stops receiving events at once; its delivery records, queued or done, are deleted with it.',
        parameters: [id()],
        success: { status: 204, description: 'Deleted.' },
        codes: found,
      }),
    },
    '/admin/webhooks/{id}/deliveries': {
      get: adminOperation({
        operationId: 'adminListWebhookDeliveries',
        summary: 'List the delivery attempts of a webhook',
        description:
          "One record per attempt, newest first: its state, the target's status and response, and when the next attempt is due.",
        parameters: [
          id(),
          queryParameter('status', 'Only attempts in this state.', { type: 'string', enum: [...DELIVERY_STATUSES] }),
          queryParameter('eventId', 'Only attempts of this event.'),
          ...offsetPageParameters(),
        ],
        success: {
          status: 200,
          description: 'A page of delivery attempts.',
          schema: 'AdminWebhookDeliveryListDocument',
        },
        codes: ['INVALID_QUERY_PARAMS', ...found],
      }),
    },
    '/admin/webhooks/{id}/deliveries/{deliveryId}': {
      get: adminOperation({
        operationId: 'adminGetWebhookDelivery',
        summary: 'One delivery attempt',
        description: "The attempt with the payload sent, the target's status and response body, and its timing.",
        parameters: [id(), deliveryId()],
        success: { status: 200, description: 'The attempt.', schema: 'AdminWebhookDeliveryDocument' },
        codes: found,
      }),
    },
    '/admin/webhooks/{id}/deliveries/{deliveryId}/retry': {
      post: adminOperation({
        operationId: 'adminRetryWebhookDelivery',
        summary: 'Send a delivery’s event again',
        description:
          'Queues a new attempt to the current url; 409 `CONFLICT` when the webhook is disabled or an attempt of the event is already queued.',
        parameters: [id(), deliveryId()],
        success: { status: 202, description: 'The new attempt, queued.', schema: 'AdminWebhookDeliveryDocument' },
        codes: send,
      }),
    },
    '/admin/webhooks/{id}/test': {
      post: adminOperation({
        operationId: 'adminTestWebhook',
        summary: 'Send a test ping',
        description: 'Queues a `webhook.ping` event for this subscription; 409 `CONFLICT` when it is disabled.',
        parameters: [id()],
        success: { status: 202, description: 'The ping’s attempt, queued.', schema: 'AdminWebhookDeliveryDocument' },
        codes: send,
      }),
    },
  };
}
