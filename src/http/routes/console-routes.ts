// GET /console (the web console) and /docs (the API reference), served from the files built into
// dist/console/ with a strict Content-Security-Policy. Off with `server.console: false`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { ApiError } from '../../errors/api-error.ts';
import { bodyOf, gzippedBody, readConsoleFiles, type ConsoleFile } from './console-files.ts';

/** Only this origin: no inline script, no eval, no remote fonts or CDNs; the API is called on the same origin. */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Scalar's reference injects its stylesheet as a <style> element and sets style attributes while it
 * renders, which a nonce cannot cover; styles only, scripts stay 'self'.
 */
export const DOCS_CSP = CONSOLE_CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");

const NOT_BUILT = 'The web console is not built: run `npm run build` (Vite is a development dependency).';

export async function registerConsoleRoutes(app: FastifyInstance, ctx: Pick<AppContext, 'config'>): Promise<void> {
  if (ctx.config.server.console === false) return;
  const files = readConsoleFiles();

  const send = async (request: FastifyRequest, reply: FastifyReply, file: ConsoleFile, csp: string) => {
    const gzipped = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? '')) ? gzippedBody(file) : null;
    let body: Buffer;
    try {
      body = await (gzipped ?? bodyOf(file));
    } catch (error) {
      // A file read from disk when asked for may have gone since start (a rebuild under a running service).
      throw new ApiError('SERVICE_UNAVAILABLE', `${request.url.split('?')[0]} cannot be read: rebuild or restart`, {
        cause: error,
      });
    }
    reply.header('Content-Security-Policy', csp);
    reply.header('Cache-Control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    reply.header('Vary', 'Accept-Encoding');
    if (gzipped) reply.header('Content-Encoding', 'gzip');
    return reply.code(200).type(file.type).send(body);
  };
  const serve = (path: string, csp: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    if (files === null) throw new ApiError('SERVICE_UNAVAILABLE', NOT_BUILT);
    const file = files.get(path === '*' ? request.url.split('?')[0]! : path);
    if (file === undefined) throw new ApiError('ROUTE_NOT_FOUND', `No route for GET ${request.url.split('?')[0]}`);
    return send(request, reply, file, csp);
  };

  app.get('/console', serve('/console/index.html', CONSOLE_CSP));
  app.get('/console/*', serve('*', CONSOLE_CSP));
  app.get('/docs', serve('/docs/index.html', DOCS_CSP));
  app.get('/docs/*', serve('*', DOCS_CSP));
}
