// Calls the identity endpoints under /auth. Account changes act with the user's session token
// (Authorization: Bearer), not the console's API key. A provider's sign-in and a two-factor sign-in
// instead leave a session cookie on this origin, which `withCookie` sends. Their errors are
// `{ code, message }` objects (svc's own checks in front of them answer JSON:API documents); both
// become ApiFailure.
import { ApiFailure, type ErrorObject } from './api.ts';

export const AUTH_BASE = '/auth';

/** GET /auth/methods: the ways of signing in that are on. */
export interface SignInMethods {
  emailAndPassword: boolean;
  magicLink: boolean;
  emailOtp: boolean;
  twoFactor: boolean;
  social: string[];
  oidc: { id: string; name: string }[];
}

export interface SessionCallOptions {
  method?: string;
  body?: unknown;
  sessionToken?: string | undefined;
  /** Send and keep this origin's cookies (the provider and two-factor sign-in flows). */
  withCookie?: boolean;
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
    // The cookie never leaves this origin; without it, the token above is the only credential.
    credentials: options.withCookie ? 'same-origin' : 'omit',
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

/** Display names of better-auth's provider ids, where the id alone would read oddly. */
const PROVIDER_NAMES: ReadonlyMap<string, string> = new Map([
  ['github', 'GitHub'],
  ['gitlab', 'GitLab'],
  ['linkedin', 'LinkedIn'],
  ['tiktok', 'TikTok'],
  ['paypal', 'PayPal'],
  ['vk', 'VK'],
  ['huggingface', 'Hugging Face'],
  ['microsoft', 'Microsoft'],
  ['twitter', 'X (Twitter)'],
  ['wechat', 'WeChat'],
]);

export function providerName(id: string): string {
  return PROVIDER_NAMES.get(id) ?? id.charAt(0).toUpperCase() + id.slice(1);
}
