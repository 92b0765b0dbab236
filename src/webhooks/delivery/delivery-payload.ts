// The JSON body of a delivery (docs/webhooks.md, What a delivery looks like): the event, the attempt, and the selected fields when the
// subscription lists fieldIds.
import { eventDataJson } from '../../events/event-json.ts';
import type { RecordEvent } from '../../model/record-event.ts';
import type { Resource } from '../../resources/resource.ts';

export interface PayloadField {
  id: string;
  type: string;
  value: unknown;
}

export interface DeliveryPayload {
  id: string;
  event: {
    type: string;
    resource: string;
    resourceId: string;
    createdAt: string;
    data: RecordEvent['data'];
    sessionVariables: RecordEvent['sessionVariables'];
    traceContext: RecordEvent['traceContext'];
  };
  delivery: { id: string; attempt: number };
  fields?: Record<string, PayloadField>;
}

export function buildDeliveryPayload(
  event: RecordEvent,
  delivery: { id: string; attempt: number },
  fieldIds: readonly string[] | null,
  resource: Resource | undefined,
): DeliveryPayload {
  const payload: DeliveryPayload = {
    id: event.id,
    event: {
      type: event.type,
      resource: event.resource,
      resourceId: event.resourceId,
      createdAt: event.createdAt,
      data: event.data,
      sessionVariables: event.sessionVariables,
      traceContext: event.traceContext,
    },
    delivery,
  };
  if (fieldIds !== null) payload.fields = selectFields(event, fieldIds, resource);
  return payload;
}

const json = JSON.stringify;

/** JSON.stringify(buildDeliveryPayload(…)), with the event's data text shared with its outbox row (event-json.ts). */
export function deliveryPayloadJson(
  event: RecordEvent,
  delivery: { id: string; attempt: number },
  fieldIds: readonly string[] | null,
  resource: Resource | undefined,
): string {
  const fields = fieldIds === null ? '' : `,"fields":${json(selectFields(event, fieldIds, resource))}`;
  return (
    `{"id":${json(event.id)},"event":{"type":${json(event.type)},"resource":${json(event.resource)},"resourceId":${json(event.resourceId)},` +
    `"createdAt":${json(event.createdAt)},"data":${eventDataJson(event.data)},"sessionVariables":${json(event.sessionVariables)},` +
    `"traceContext":${json(event.traceContext)}},"delivery":{"id":${json(delivery.id)},"attempt":${json(delivery.attempt)}}${fields}}`
  );
}

/** Field name → `{ id, type, value }` for the fields whose stable id is listed; values of the record after the change, else before. */
function selectFields(
  event: RecordEvent,
  fieldIds: readonly string[],
  resource: Resource | undefined,
): Record<string, PayloadField> {
  const fields: Record<string, PayloadField> = {};
  if (!resource) return fields;
  const wanted = new Set(fieldIds);
  const values = event.data.new ?? event.data.old ?? {};
  for (const field of resource.fields.values()) {
    if (!wanted.has(field.id)) continue;
    // Own members only: a field named `constructor` that the record lacks is null, not Object.
    const value = Object.hasOwn(values, field.name) ? (values[field.name] ?? null) : null;
    fields[field.name] = { id: field.id, type: field.definition.type, value };
  }
  return fields;
}

/** The body of a later attempt of the same delivery: only `delivery` changes. */
export function payloadForAttempt(previousBody: string, delivery: { id: string; attempt: number }): string {
  const payload = JSON.parse(previousBody) as DeliveryPayload;
  return JSON.stringify({ ...payload, delivery });
}
