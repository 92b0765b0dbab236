// Every route that takes a body says how it is read, in its options (`config: { requestBody }`): with a
// schema of its own (a RequestBody, the one the OpenAPI document shows), or by a named reader that is
// not a fixed schema. A route that would take a body without saying so stops the start, so no body can
// be read a way the OpenAPI document does not describe.
import type { FastifyInstance } from 'fastify';
import type { AtomicOperationsBody } from './atomic-operations-body.ts';
import type { RequestBody } from './request-body.ts';

/**
 * Bodies read by something other than one fixed schema: a resource's records (their fields' schemas,
 * per caller: records/validate-record-body.ts), the identity component's own endpoints (better-auth checks those), a file field's raw upload (the bytes
 * as sent, streamed into storage: http/files/), or none: the route reads no body (one
 * sent is still parsed, or refused, like any other, then ignored).
 */
export type NamedReader = 'records' | 'identity-component' | 'file-upload' | 'none';

/** An Atomic Operations document is read with a schema of its own too, one not of a flat body. */
export type DeclaredBody = RequestBody<object> | AtomicOperationsBody | NamedReader;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How this route's body is read (declared-bodies.ts). */
    requestBody?: DeclaredBody;
  }
  interface FastifyInstance {
    /** svc's own routes that take a body, and how each reads it (what the OpenAPI document is checked against). */
    bodyRoutes: readonly BodyRoute[];
  }
}

const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

export interface BodyRoute {
  method: string;
  /** Fastify's form: `/admin/webhooks/:id`. */
  url: string;
  body: DeclaredBody;
}

/** The routes that take a body, as they are registered, until `done` (a hooks file's routes declare their own). */
export class DeclaredBodies {
  readonly routes: BodyRoute[] = [];
  #done = false;

  constructor(app: FastifyInstance) {
    app.addHook('onRoute', (route) => {
      if (this.#done) return;
      const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((method) =>
        BODY_METHODS.has(method),
      );
      if (methods.length === 0) return;
      const body = (route.config as { requestBody?: DeclaredBody } | undefined)?.requestBody;
      if (body === undefined)
        throw new Error(`${methods.join(',')} ${route.url} takes a body but does not declare how it is read`);
      for (const method of methods) this.routes.push({ method, url: route.url, body });
    });
  }

  done(): void {
    this.#done = true;
  }
}
