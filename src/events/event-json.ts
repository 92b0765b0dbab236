// The JSON text of events. An event's data (the record before and after the change) is most of its
// text, and a write serializes it for its outbox row and again for each of its webhook deliveries:
// that part is made once per event, and the rest, a few short fields, around it.
import type { EventData, RecordEvent } from '../model/record-event.ts';

const dataTexts = new WeakMap<EventData, string>();

/** JSON.stringify(data), made once per data object (an event's data is not changed once it is built). */
export function eventDataJson(data: EventData): string {
  let text = dataTexts.get(data);
  if (text === undefined) {
    text = JSON.stringify(data);
    dataTexts.set(data, text);
  }
  return text;
}

const json = JSON.stringify;

/** The same text as JSON.stringify(event) for an event built as RecordService builds them. */
export function eventJson(event: RecordEvent): string {
  return (
    `{"id":${json(event.id)},"type":${json(event.type)},"kind":${json(event.kind)},"resource":${json(event.resource)},` +
    `"resourceId":${json(event.resourceId)},"createdAt":${json(event.createdAt)},"data":${eventDataJson(event.data)},` +
    `"sessionVariables":${json(event.sessionVariables)},"traceContext":${json(event.traceContext)}}`
  );
}
