// Calls the identity endpoints under /auth with the user's session token (Authorization: Bearer), not
// the console's API key: account changes need a signed-in session. Their errors are `{ code, message }`
// objects (svc's own checks in front of them answer JSON:API documents); both become ApiFailure.
import { ApiFailure, type ErrorObject } from './api.ts';

export const AUTH_BASE = '/auth';

export interface SessionCallOptions {
  method?: string;
  body?: unknown;
  sessionToken?: string | undefined;
}

export function identityCall<T = any>(path: string, options: SessionCallOptions = {}): Promise<T> {
  return sessionCall<T>(`${AUTH_BASE}${path}`, options);
}

/** Any svc URL called with the session token (`POST /token` issues the user's own keys this way). */
export async function sessionCall<T = any>(url: string, options: SessionCallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.sessionToken) headers.authorization = `Bearer ${options.sessionToken}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const response = await fetch(url, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
    credentials: 'omit',
  });
  const text = await response.text();
  let parsed: any = null; // any JSON, or null
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (!response.ok) {
    const errors: ErrorObject[] = Array.isArray(parsed?.errors)
      ? parsed.errors
      : [
          {
            code: parsed?.code,
            detail: typeof parsed?.message === 'string' ? parsed.message : `HTTP ${response.status}`,
          },
        ];
    throw new ApiFailure(response.status, errors);
  }
  return parsed as T;
}
