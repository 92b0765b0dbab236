// Subscription event patterns (docs/webhooks.md, Subscribing): `*`, `<resource>.*`, `*.<kind>`, `<resource>.<kind>`.
import type { EventKind } from '../../model/record-event.ts';

/** Spec 2.5: the characters a pattern may contain. */
export const EVENT_PATTERN_CHARACTERS = /^[a-zA-Z0-9_.*]+$/;

const EVENT_KINDS: readonly EventKind[] = ['created', 'updated', 'deleted'];
const NAME = /^[a-zA-Z0-9_]+$/;

/** Why a pattern is not one of the four forms, or null when it is. */
export function eventPatternProblem(pattern: string): string | null {
  if (!EVENT_PATTERN_CHARACTERS.test(pattern)) return 'may contain only letters, digits, "_", "." and "*"';
  if (pattern === '*') return null;
  const parts = pattern.split('.');
  const [resource, kind] = parts;
  if (parts.length !== 2 || resource === undefined || kind === undefined) {
    return 'must be "*", "<resource>.*", "*.<kind>" or "<resource>.<kind>"';
  }
  if (resource === '*' && kind === '*') return 'use "*" to match every event';
  if (resource !== '*' && !NAME.test(resource)) return `"${resource}" is not a resource name or "*"`;
  // A kind outside created/updated/deleted would silently never match: refusing it catches typos.
  if (kind !== '*' && !(EVENT_KINDS as readonly string[]).includes(kind)) {
    return `"${kind}" is not an event kind: use created, updated, deleted or "*"`;
  }
  return null;
}

/** Whether an event type `<resource>.<kind>` matches a (valid) pattern. */
export function matchEventPattern(pattern: string, eventType: string): boolean {
  if (pattern === '*') return true;
  const dot = eventType.indexOf('.');
  if (dot < 0) return false;
  const [resource, kind] = pattern.split('.');
  return (
    (resource === '*' || resource === eventType.slice(0, dot)) && (kind === '*' || kind === eventType.slice(dot + 1))
  );
}
