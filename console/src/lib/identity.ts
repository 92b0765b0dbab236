// Calls the identity component (better-auth, under /auth) with the browser's session cookie: the
// sign-in methods, provider sign-in and two-factor setup. Its answers are plain JSON, its errors
// `{ code, message }`; the login throttle's 429 is a JSON:API document.

/** Where the console finds the identity endpoints: the default `auth.basePath`. */
export const IDENTITY_BASE = '/auth';

export interface SignInMethods {
  emailAndPassword: boolean;
  magicLink: boolean;
  emailOtp: boolean;
  twoFactor: boolean;
  social: string[];
  oidc: { id: string; name: string }[];
}

export class IdentityFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function identityCall<T = unknown>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${IDENTITY_BASE}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers:
      body === undefined
        ? { accept: 'application/json' }
        : { accept: 'application/json', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    // The session cookie is the credential here, and it never leaves this origin.
    credentials: 'same-origin',
  });
  const text = await response.text();
  let parsed: any = null; // better-auth's JSON, or svc's JSON:API error document
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (!response.ok) {
    const error = Array.isArray(parsed?.errors) ? parsed.errors[0] : parsed;
    throw new IdentityFailure(
      response.status,
      String(error?.code ?? response.status),
      String(error?.message ?? error?.detail ?? `HTTP ${response.status}`),
    );
  }
  return parsed as T;
}

/** Display names of better-auth's provider ids, where the id alone would read oddly. */
const PROVIDER_NAMES: Record<string, string> = {
  github: 'GitHub',
  gitlab: 'GitLab',
  linkedin: 'LinkedIn',
  tiktok: 'TikTok',
  paypal: 'PayPal',
  vk: 'VK',
  huggingface: 'Hugging Face',
  microsoft: 'Microsoft',
  twitter: 'X (Twitter)',
  wechat: 'WeChat',
};

export function providerName(id: string): string {
  return Object.hasOwn(PROVIDER_NAMES, id) ? PROVIDER_NAMES[id]! : id.charAt(0).toUpperCase() + id.slice(1);
}
