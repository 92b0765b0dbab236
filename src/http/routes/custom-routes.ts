// The routes a hooks file adds (`routes(app, { records })`, docs/hooks.md), mounted on svc's own
// Fastify: the same request ids, error documents, CORS and security headers as every route, and svc's
// authentication (with the key's rate limit) chosen per route by `auth`. A route that would answer
// where a generated route does is refused at start with a line that names both.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions as FastifyRouteOptions } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { authenticateHook } from '../guards/authenticate-hook.ts';
import { requireAdmin } from '../guards/require-admin.ts';
import { ApiError } from '../../errors/api-error.ts';
import { callerView } from '../../hooks/caller-view.ts';
import type { HookApp, RequestSvc, RouteAuth } from '../../hooks/hook-types.ts';
import type { CustomRouteDocs } from '../openapi/custom-route-docs.ts';
import { isRecord } from '../../tools/is-record.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on the routes of a hooks file: the caller and their records. */
    svc: RequestSvc | null;
  }
}

interface KnownRoute {
  methods: readonly string[];
  segments: readonly string[];
  url: string;
}

const AUTH_MODES: ReadonlySet<string> = new Set<RouteAuth>(['key', 'admin', 'any', 'public']);
/** Segments of the generated routes that take a resource's name (resource-routes.ts). */
const RESOURCE_SEGMENTS: ReadonlySet<string> = new Set([':resource', ':related']);

/** The routes svc generates, recorded as they are registered, until the custom ones start. */
export class GeneratedRoutes {
  readonly known: KnownRoute[] = [];
  #done = false;

  /** Records every route registered on `app` from now on, until `done`. */
  constructor(app: FastifyInstance) {
    app.addHook('onRoute', (route) => {
      if (this.#done) return;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      this.known.push({ methods, segments: segmentsOf(route.url), url: route.url });
    });
  }

  done(): void {
    this.#done = true;
  }
}

export async function registerCustomRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'auth' | 'hooks' | 'registry'>,
  generatedRoutes: GeneratedRoutes,
  docs: CustomRouteDocs,
): Promise<void> {
  generatedRoutes.done();
  const generated = generatedRoutes.known;
  const routes = ctx.hooks.current.routes;
  if (!routes) return;
  app.decorateRequest('svc', null);
  const authenticate = authenticateHook(ctx);
  const admin = requireAdmin(ctx);
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      const options = route as FastifyRouteOptions & { auth?: unknown };
      const auth = options.auth ?? 'key';
      const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter(
        (method) => method !== 'HEAD',
      );
      if (typeof auth !== 'string' || !AUTH_MODES.has(auth)) {
        throw new Error(
          `Custom route ${methods.join(',')} ${route.url}: auth must be 'key', 'admin', 'any' or 'public', got ${JSON.stringify(auth)}`,
        );
      }
      const shadowed = shadowedBy(
        methods,
        route.url,
        generated,
        new Set(ctx.registry.all().map((resource) => resource.name)),
      );
      if (shadowed)
        throw new Error(
          `Custom route ${shadowed.method} ${route.url} would answer where the generated route ${shadowed.method} ${shadowed.url} does: choose another path`,
        );
      const guards = [...toArray(route.onRequest)];
      if (auth === 'admin') guards.unshift(admin, hideCredential);
      else if (auth !== 'public') guards.unshift(authenticate, auth === 'key' ? refuseAdmin : noCheck, hideCredential);
      guards.push(attachSvc(ctx, auth as RouteAuth));
      route.onRequest = guards as FastifyRouteOptions['onRequest'];
      if (isRecord(route.schema))
        for (const method of methods)
          docs.add({ method, url: route.url, auth: auth as RouteAuth, schema: route.schema });
    });
    await routes(scope as unknown as HookApp, { records: ctx.hooks.records(undefined) });
  });
}

function toArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

async function noCheck(): Promise<void> {}

/** `auth: 'key'`: an API key's or token's user; the admin token has `'admin'` and `'any'` routes. */
async function refuseAdmin(request: FastifyRequest): Promise<void> {
  if (request.principal?.kind === 'admin')
    throw new ApiError('ADMIN_TOKEN_NOT_ALLOWED', 'This route takes an API key, not the admin token');
}

/**
 * Once svc has authenticated the request, the credential leaves it: the route's own hooks and handler
 * get the caller (`request.svc.caller`), never the key's secret or the admin token (docs/hooks.md).
 */
async function hideCredential(request: FastifyRequest): Promise<void> {
  delete request.headers.authorization;
}

function attachSvc(ctx: Pick<AppContext, 'hooks'>, auth: RouteAuth) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const principal =
      auth === 'admin' ? ({ kind: 'admin' } as const) : auth === 'public' ? undefined : request.principal;
    const meta = principal ? { principal, requestId: request.id } : undefined;
    request.svc = Object.freeze({ caller: principal ? callerView(principal) : null, records: ctx.hooks.records(meta) });
  };
}

/** `/v1/posts/` → ['v1', 'posts']: routes ignore a trailing slash. */
function segmentsOf(url: string): string[] {
  const segments = url.split('/').slice(1);
  if (segments.at(-1) === '') segments.pop();
  return segments;
}

const isParam = (segment: string) => segment.includes(':');

/** The generated route a custom one would take requests from, if any (same method, a URL both match). */
function shadowedBy(
  methods: readonly string[],
  url: string,
  generated: readonly KnownRoute[],
  resources: ReadonlySet<string>,
): { method: string; url: string } | undefined {
  const custom = segmentsOf(url);
  for (const route of generated) {
    const method = methods.find((m) => route.methods.includes(m));
    if (method === undefined) continue;
    if (overlap(custom, route.segments, resources)) return { method, url: route.url };
  }
  return undefined;
}

function overlap(custom: readonly string[], generated: readonly string[], resources: ReadonlySet<string>): boolean {
  for (let i = 0; i < generated.length; i++) {
    const theirs = generated[i]!;
    if (theirs === '*') return custom.length >= i;
    const ours = custom[i];
    if (ours === undefined) return false;
    if (ours === '*') return true;
    if (RESOURCE_SEGMENTS.has(theirs)) {
      if (!isParam(ours) && !resources.has(ours)) return false;
    } else if (!isParam(theirs) && !isParam(ours) && theirs !== ours) {
      return false;
    }
  }
  return custom.length === generated.length;
}
