// An admin's body for creating or updating a subscription (docs/admin-api.md, Webhooks) once its shape is
// checked (http/bodies/webhook-bodies.ts): what only the service can check of it (a url it may send to,
// an event pattern it can match, headers it may send), and the input it stands for.
import type { ErrorIssue } from '../../errors/api-error.ts';
import { checkWebhookUrl } from '../targets/check-webhook-url.ts';
import { checkWebhookHeaders } from './check-webhook-headers.ts';
import { eventPatternProblem } from './match-event-pattern.ts';
import { DEFAULT_RETRY_CONFIG, type RetryConfig } from './retry-config.ts';
import type { WebhookInput } from './webhook-subscription.ts';

export const MAX_NAME_LENGTH = 255;
export const MAX_FIELD_IDS = 1000;
export const MAX_FIELD_ID_LENGTH = 255;

/** The body as its schema accepts it; a create's has name, url and eventPattern. */
export interface WebhookBody {
  name?: string;
  url?: string;
  eventPattern?: string;
  headers?: Record<string, string> | null;
  enabled?: boolean;
  retryConfig?: Partial<RetryConfig> | null;
  fieldIds?: string[] | null;
}

/** Problems of the members the schema accepted, each naming its member. */
export function webhookBodyProblems(
  body: Partial<WebhookBody>,
  options: { allowPrivateTargets: boolean },
): ErrorIssue[] {
  const issues: ErrorIssue[] = [];
  if (body.name !== undefined && body.name.trim() === '')
    issues.push({ field: 'name', detail: `must be 1 to ${MAX_NAME_LENGTH} characters, not blank` });
  if (body.url !== undefined)
    for (const detail of checkWebhookUrl(body.url, options)) issues.push({ field: 'url', detail });
  if (body.eventPattern !== undefined) {
    const problem = eventPatternProblem(body.eventPattern);
    if (problem) issues.push({ field: 'eventPattern', detail: problem });
  }
  if (body.headers !== undefined) issues.push(...checkWebhookHeaders(body.headers, 'headers').issues);
  return issues;
}

/** The input a checked body stands for: retry settings completed with the defaults, field ids once each. */
export function webhookInputOf(body: WebhookBody): WebhookInput {
  const input: WebhookInput = {};
  if (body.name !== undefined) input.name = body.name;
  if (body.url !== undefined) input.url = body.url;
  if (body.eventPattern !== undefined) input.eventPattern = body.eventPattern;
  if (body.headers !== undefined) input.headers = body.headers;
  if (body.enabled !== undefined) input.enabled = body.enabled;
  // The schema takes the settings within their bounds; the ones left out take the defaults.
  if (body.retryConfig !== undefined)
    input.retryConfig = body.retryConfig === null ? null : { ...DEFAULT_RETRY_CONFIG, ...body.retryConfig };
  if (body.fieldIds !== undefined) input.fieldIds = body.fieldIds === null ? null : [...new Set(body.fieldIds)];
  return input;
}
