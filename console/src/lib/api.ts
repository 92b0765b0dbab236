// Calls the svc API as the signed-in principal and turns JSON:API error documents into ApiFailure.

/** Who the console acts as. Stored by session.ts; defined here so this module needs no browser storage. */
export interface Session {
  kind: 'admin' | 'user';
  token: string;
  /** The user's email, shown in the sidebar (user sessions only). */
  email?: string;
  expiresAt?: string;
  /** The identity session's token (user sessions): the "My account" page acts with it. */
  sessionToken?: string;
  /** The role chosen among the user's allowed roles, sent as `X-Service-Role` on every request. */
  role?: string;
}

export interface ErrorObject {
  status?: string;
  code?: string;
  title?: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string };
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly errors: ErrorObject[],
  ) {
    super(
      errors
        .map((e) => e.detail ?? e.title ?? e.code)
        .filter(Boolean)
        .join('; ') || `HTTP ${status}`,
    );
  }

  /** Messages by attribute name, from `source.pointer` `/data/attributes/<name>` (or `/<name>`). */
  byField(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const error of this.errors) {
      const pointer = error.source?.pointer;
      if (!pointer) continue;
      const match = /^\/(?:data\/attributes\/)?([^/]+)/.exec(pointer);
      if (!match || match[1] === 'data') continue;
      const list = out.get(match[1]!) ?? [];
      list.push(error.detail ?? error.title ?? 'invalid');
      out.set(match[1]!, list);
    }
    return out;
  }
}

export const JSON_API = 'application/vnd.api+json';

let current: Session | null = null;
let onUnauthorized: () => void = () => {};

export function useSession(session: Session | null, unauthorized?: () => void): void {
  current = session;
  if (unauthorized) onUnauthorized = unauthorized;
}

export function authHeaders(session: Session | null = current): Record<string, string> {
  if (!session) return {};
  return { authorization: `Bearer ${session.token}`, ...(session.role ? { 'x-service-role': session.role } : {}) };
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  /** JSON:API bodies (/v1) or plain JSON (admin endpoints, /token). */
  jsonApi?: boolean;
  session?: Session | null;
  accept?: string;
  /** A body's media type when it is neither of the two above (an atomic request's extension). */
  contentType?: string;
  signal?: AbortSignal;
}

/**
 * The parsed answer (null for 204), or throws ApiFailure. `any` by default: answers are JSON documents
 * whose shape each view reads defensively (optional chaining, `?? []`), as the API publishes it.
 */
export async function call<T = any>(path: string, options: CallOptions = {}): Promise<T> {
  const session = options.session === undefined ? current : options.session;
  const headers: Record<string, string> = {
    accept: options.accept ?? `${JSON_API}, application/json`,
    ...authHeaders(session),
  };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = options.contentType ?? (options.jsonApi === false ? 'application/json' : JSON_API);
    body = JSON.stringify(options.body);
  }
  const response = await fetch(path, {
    method: options.method ?? 'GET',
    headers,
    body,
    signal: options.signal,
    credentials: 'omit',
  });
  if (response.status === 204) return null as T;
  const text = await response.text();
  let parsed: any = null; // any JSON at all, or the raw text when it is not JSON
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (!response.ok) {
    const errors: ErrorObject[] = Array.isArray(parsed?.errors)
      ? parsed.errors
      : [{ detail: typeof parsed === 'string' ? parsed.slice(0, 200) : `HTTP ${response.status}` }];
    if (response.status === 401 && session === current && current !== null) onUnauthorized();
    throw new ApiFailure(response.status, errors);
  }
  return parsed as T;
}

/**
 * An answer as a file (an export), or throws ApiFailure. The API takes the session in a header, which
 * a plain link cannot send: the view hands the blob to the browser's download.
 */
export async function fetchFile(path: string): Promise<Blob> {
  const response = await fetch(path, { headers: authHeaders(), credentials: 'omit' });
  if (!response.ok) {
    const text = await response.text();
    let errors: ErrorObject[] = [{ detail: `HTTP ${response.status}` }];
    try {
      const parsed = JSON.parse(text);
      if (Array.isArray(parsed?.errors)) errors = parsed.errors;
    } catch {
      // not a JSON:API error document: the status says enough
    }
    throw new ApiFailure(response.status, errors);
  }
  return response.blob();
}

/** The raw text of an answer (Prometheus metrics). */
export async function callText(path: string): Promise<string> {
  const response = await fetch(path, { headers: { accept: 'text/plain', ...authHeaders() }, credentials: 'omit' });
  const text = await response.text();
  if (!response.ok) throw new ApiFailure(response.status, [{ detail: text.slice(0, 200) }]);
  return text;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
