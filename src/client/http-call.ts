// One request to the service: the base URL, the credential, JSON in and out, and a SvcClientError for
// any answer that is not a success (the server's JSON:API errors, or the identity component's
// `{ code, message }`, or the status alone).
import { type JsonApiError, SvcClientError } from './svc-client-error.ts';

export interface Transport {
  readonly baseUrl: string;
  readonly fetch: typeof fetch;
  /** The Authorization header's value, if any. */
  authorization(): string | undefined;
  /** Whether the browser should send cookies (sign-in with a session). */
  readonly credentials: 'include' | undefined;
}

async function errorsOf(response: Response): Promise<JsonApiError[]> {
  const text = await response.text().catch(() => '');
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === 'object' && body !== null) {
      const document = body as { errors?: unknown; code?: unknown; message?: unknown };
      if (Array.isArray(document.errors)) return document.errors as JsonApiError[];
      if (typeof document.code === 'string') {
        return [
          {
            status: String(response.status),
            code: document.code,
            ...(typeof document.message === 'string' ? { detail: document.message } : {}),
          },
        ];
      }
    }
  } catch {
    // Not JSON (a proxy's error page): the status alone says it.
  }
  return [{ status: String(response.status), title: response.statusText }];
}

export async function call<T>(
  transport: Transport,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
  extraHeaders?: Record<string, string>,
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/vnd.api+json, application/json', ...extraHeaders };
  const authorization = transport.authorization();
  if (authorization !== undefined) headers.authorization = authorization;
  if (body !== undefined) headers['content-type'] = contentType;
  const response = await transport.fetch(new URL(path, transport.baseUrl), {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    ...(transport.credentials !== undefined ? { credentials: transport.credentials } : {}),
  });
  if (!response.ok) throw new SvcClientError(response.status, await errorsOf(response));
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}
