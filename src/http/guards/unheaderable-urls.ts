// URLs the identity component may send back in a `Location` header (`callbackURL` and the like) must be
// header bytes: a character above U+00FF (U+3000, U+2028) makes it throw instead of answering. Such a
// value is refused before the identity component sees the request, pointing at it, with the advice to
// percent-encode it.
import { ApiError } from '../../errors/api-error.ts';

/** Members and query parameters that name a URL: `callbackURL`, `errorCallbackURL`, `redirectTo`… */
const URL_MEMBER = /(?:url|redirectto)$/i;
/** Any UTF-16 code unit above U+00FF (surrogates included). */
const OUTSIDE_LATIN1 = /[\u0100-\uffff]/;
const JSON_CONTENT_TYPE = /^application\/([a-z0-9.+-]*\+)?json/i;

function unheaderable(name: string, value: unknown): value is string {
  return typeof value === 'string' && URL_MEMBER.test(name) && OUTSIDE_LATIN1.test(value);
}

const advice = (name: string) =>
  `${name} holds a character outside Latin-1, which cannot be sent in a header: percent-encode it`;

async function bodyMembers(request: Request): Promise<Iterable<[string, unknown]>> {
  const contentType = request.headers.get('content-type') ?? '';
  const isJson = JSON_CONTENT_TYPE.test(contentType);
  if (!isJson && !contentType.toLowerCase().includes('application/x-www-form-urlencoded')) return [];
  const text = await request.clone().text();
  if (!isJson) return new URLSearchParams(text);
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === 'object' && body !== null && !Array.isArray(body) ? Object.entries(body) : [];
  } catch {
    return []; // the identity component refuses it
  }
}

export async function refuseUnheaderableUrls(request: Request): Promise<void> {
  for (const [name, value] of new URL(request.url).searchParams) {
    if (unheaderable(name, value))
      throw new ApiError('INVALID_QUERY_PARAMS', { detail: advice(name), parameter: name });
  }
  if (request.method !== 'POST') return;
  for (const [name, value] of await bodyMembers(request)) {
    if (unheaderable(name, value)) {
      throw new ApiError('INVALID_RESOURCE_DATA', {
        detail: advice(name),
        pointer: `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      });
    }
  }
}
