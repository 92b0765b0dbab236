// Checks an admin's flat JSON body for creating or updating a subscription (docs/admin-api.md, Webhooks): every
// problem is reported at once, one error object each, pointing at /data/attributes/<member>.
import { ApiError, pointerTo, type ErrorIssue } from '../../errors/api-error.ts';
import { checkRetryConfig } from './check-retry-config.ts';
import { checkWebhookHeaders } from './check-webhook-headers.ts';
import { checkWebhookUrl } from '../targets/check-webhook-url.ts';
import { eventPatternProblem } from './match-event-pattern.ts';
import type { WebhookInput } from './webhook-subscription.ts';

export type InputMode = 'create' | 'update';

export const MAX_NAME_LENGTH = 255;
export const MAX_FIELD_IDS = 1000;
export const MAX_FIELD_ID_LENGTH = 255;
const WRITABLE = ['name', 'url', 'eventPattern', 'headers', 'enabled', 'retryConfig', 'fieldIds'] as const;
const REQUIRED_ON_CREATE = ['name', 'url', 'eventPattern'] as const;

export function validateWebhookInput(
  body: unknown,
  mode: InputMode,
  options: { allowPrivateTargets: boolean },
): WebhookInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError('INVALID_RESOURCE_DATA', {
      detail: 'The body must be a JSON object of subscription fields',
      pointer: '/data',
    });
  }
  const given = body as Record<string, unknown>;
  const issues: ErrorIssue[] = [];
  const input: WebhookInput = {};

  for (const name of Object.keys(given)) {
    if (!(WRITABLE as readonly string[]).includes(name)) {
      issues.push({ pointer: pointerTo(name), detail: `"${name}" is not a writable subscription field` });
    }
  }
  const missing = new Set<string>();
  if (mode === 'create') {
    for (const name of REQUIRED_ON_CREATE) {
      if (given[name] === undefined || given[name] === null) {
        missing.add(name);
        issues.push({ pointer: pointerTo(name), detail: 'is required' });
      }
    }
  }
  const has = (name: string) => Object.hasOwn(given, name) && !missing.has(name);

  if (has('name')) {
    const name = given.name;
    const length = typeof name === 'string' ? [...name].length : 0;
    if (typeof name !== 'string') issues.push({ pointer: pointerTo('name'), detail: 'must be a string' });
    else if (name.trim() === '' || length > MAX_NAME_LENGTH)
      issues.push({ pointer: pointerTo('name'), detail: `must be 1 to ${MAX_NAME_LENGTH} characters` });
    else input.name = name;
  }

  if (has('url')) {
    const url = given.url;
    if (typeof url !== 'string') issues.push({ pointer: pointerTo('url'), detail: 'must be a string' });
    else {
      const problems = checkWebhookUrl(url, options);
      for (const detail of problems) issues.push({ pointer: pointerTo('url'), detail });
      if (problems.length === 0) input.url = url;
    }
  }

  if (has('eventPattern')) {
    const pattern = given.eventPattern;
    const problem = typeof pattern === 'string' ? eventPatternProblem(pattern) : 'must be a string';
    if (problem) issues.push({ pointer: pointerTo('eventPattern'), detail: problem });
    else input.eventPattern = pattern as string;
  }

  if (has('headers')) {
    const checked = checkWebhookHeaders(given.headers, pointerTo('headers'));
    issues.push(...checked.issues);
    if (checked.issues.length === 0) input.headers = checked.headers;
  }

  if (has('enabled')) {
    if (typeof given.enabled !== 'boolean')
      issues.push({ pointer: pointerTo('enabled'), detail: 'must be true or false' });
    else input.enabled = given.enabled;
  }

  if (has('retryConfig')) {
    const checked = checkRetryConfig(given.retryConfig, pointerTo('retryConfig'));
    issues.push(...checked.issues);
    if (checked.issues.length === 0) input.retryConfig = checked.retryConfig;
  }

  if (has('fieldIds')) {
    const fieldIds = checkFieldIds(given.fieldIds, issues);
    if (fieldIds !== undefined) input.fieldIds = fieldIds;
  }

  if (issues.length > 0) throw new ApiError('INVALID_RESOURCE_DATA', issues);
  return input;
}

function checkFieldIds(value: unknown, issues: ErrorIssue[]): string[] | null | undefined {
  const pointer = pointerTo('fieldIds');
  if (value === null) return null;
  if (!Array.isArray(value)) {
    issues.push({ pointer, detail: 'must be an array of field ids or null' });
    return undefined;
  }
  if (value.length > MAX_FIELD_IDS) {
    issues.push({ pointer, detail: `must have at most ${MAX_FIELD_IDS} entries` });
    return undefined;
  }
  const before = issues.length;
  value.forEach((id: unknown, index) => {
    if (typeof id !== 'string' || id === '' || id.length > MAX_FIELD_ID_LENGTH) {
      issues.push({
        pointer: `${pointer}/${index}`,
        detail: `must be a field id: a string of 1 to ${MAX_FIELD_ID_LENGTH} characters`,
      });
    }
  });
  return issues.length === before ? [...new Set(value as string[])] : undefined;
}
