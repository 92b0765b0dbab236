// Reads one string field of an identity request's body as better-auth reads it (JSON, or a form's
// last value), without consuming the request.

/** better-call's test for a JSON body; it reads a form only when this does not match. */
const JSON_CONTENT_TYPE = /^application\/([a-z0-9.+-]*\+)?json/i;

export async function requestBodyField(request: Request, name: string): Promise<string | undefined> {
  const contentType = request.headers.get('content-type') ?? '';
  try {
    const text = await request.clone().text();
    if (JSON_CONTENT_TYPE.test(contentType)) {
      const body: unknown = JSON.parse(text);
      const value =
        typeof body === 'object' && body !== null && Object.hasOwn(body, name)
          ? (body as Record<string, unknown>)[name]
          : undefined;
      return typeof value === 'string' ? value : undefined;
    }
    if (contentType.toLowerCase().includes('application/x-www-form-urlencoded'))
      return new URLSearchParams(text).getAll(name).at(-1);
  } catch {
    // A body better-auth cannot read either: it answers 400 without acting on it.
  }
  return undefined;
}
