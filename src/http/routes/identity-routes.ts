// Mounts the identity component (better-auth) at `auth.basePath`: each request is handed over as a
// Web Request and better-auth's Response is copied back (status, every header, each Set-Cookie, body).
import { refuseUnheaderableUrls } from '../guards/unheaderable-urls.ts';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { CLIENT_IP_HEADER, identityBaseUrl } from '../../auth/identity/build-identity-options.ts';
import { ApiError, type ErrorIssue } from '../../errors/api-error.ts';
import { attributePointer } from '../server/domain-error-answer.ts';
import { MAX_UNSTORABLE_ISSUES, unstorableProblem } from '../server/unstorable-text.ts';

/** Headers that describe one hop or the original body, which is re-serialized here. */
const DROPPED_REQUEST_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'content-length',
  CLIENT_IP_HEADER,
]);
const DROPPED_RESPONSE_HEADERS = new Set(['set-cookie', 'content-length', 'transfer-encoding', 'connection']);

// Tells requests from scripts and servers apart from a browser's, for better-auth's CSRF check.
/**
 * A browser sends `Origin` with every request that is neither GET nor HEAD (the value `null` when it
 * hides the origin), and cookies whenever it has them. So a POST with no Origin, no Referer and no
 * Cookie was not made by a browser page, and the Fetch Metadata headers it carries (Node's fetch adds
 * `Sec-Fetch-Mode: cors` to every request) describe no browser context that CSRF could abuse.
 */
function isNonBrowserRequest(method: string, headers: IncomingHttpHeaders): boolean {
  if (method === 'GET' || method === 'HEAD') return false;
  return headers.origin === undefined && headers.referer === undefined && headers.cookie === undefined;
}

function isFetchMetadataHeader(name: string): boolean {
  return name.startsWith('sec-fetch-');
}

function toWebRequest(request: FastifyRequest, origin: string): Request {
  const headers = new Headers();
  // better-auth demands an Origin from any sign-up or sign-in with Fetch Metadata, which would shut out
  // scripts; a browser's request keeps them, and with them the check.
  const dropFetchMetadata = isNonBrowserRequest(request.method, request.headers);
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || DROPPED_REQUEST_HEADERS.has(name)) continue;
    if (dropFetchMetadata && isFetchMetadataHeader(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // better-auth rate-limits and records sessions by client address; give it Fastify's view of it.
  headers.set(CLIENT_IP_HEADER, request.ip);
  let body: string | undefined;
  if (request.method !== 'GET' && request.method !== 'HEAD' && request.body !== undefined) {
    if (typeof request.body === 'string') {
      body = request.body; // a form body, kept as sent
    } else {
      // Our JSON parser already consumed the stream; better-auth gets the same JSON back.
      body = JSON.stringify(request.body);
      headers.set('content-type', 'application/json');
    }
  }
  return new Request(new URL(request.url, origin), {
    method: request.method,
    headers,
    ...(body !== undefined ? { body } : {}),
  });
}

async function sendWebResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  response: Response,
): Promise<FastifyReply> {
  const body = Buffer.from(await response.arrayBuffer());
  // better-auth answers a path it does not know with a bare 404; answer it like any unknown route.
  if (response.status === 404 && body.length === 0) {
    throw new ApiError('ROUTE_NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}`);
  }
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    if (!DROPPED_RESPONSE_HEADERS.has(name)) reply.header(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) reply.header('set-cookie', cookies);
  return reply.send(body.length > 0 ? body : undefined);
}

/** Form fields holding U+0000, which PostgreSQL cannot store (undecodable escapes become U+FFFD, never a surrogate). */
function unstorableFormFields(form: string): ErrorIssue[] {
  if (!form.includes('%00') && !form.includes('\u0000')) return [];
  const issues: ErrorIssue[] = [];
  for (const [name, value] of new URLSearchParams(form)) {
    const problem = unstorableProblem(name) ?? unstorableProblem(value);
    if (problem) issues.push({ pointer: attributePointer(name), detail: `Form field ${problem}` });
    if (issues.length >= MAX_UNSTORABLE_ISSUES) break;
  }
  return issues;
}

export async function registerIdentityRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'config' | 'auth'>,
): Promise<void> {
  const basePath = ctx.config.auth.basePath.replace(/\/+$/, '');
  const origin = new URL(identityBaseUrl(ctx.config)).origin;
  await app.register(async (scope) => {
    // better-auth also accepts HTML form posts (sign-up, sign-in); only under its own path.
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      const issues = unstorableFormFields(String(body));
      if (issues.length > 0) return done(new ApiError('INVALID_RESOURCE_DATA', issues), undefined);
      done(null, body);
    });
    // svc's own, beside better-auth's catch-all: which sign-in buttons a page should show.
    scope.get(`${basePath}/methods`, async (_request, reply) =>
      reply.header('Cache-Control', 'no-cache').send(ctx.auth.signInMethods),
    );
    scope.route({
      method: ['GET', 'POST'],
      url: `${basePath}/*`,
      // better-auth reads and checks these bodies itself (the OpenAPI document describes them).
      config: { requestBody: 'identity-component' },
      handler: async (request, reply) => {
        const webRequest = toWebRequest(request, origin);
        await refuseUnheaderableUrls(webRequest);
        return sendWebResponse(request, reply, await ctx.auth.handleIdentityRequest(webRequest));
      },
    });
  });
}
