// Public endpoints outside /v1: health, readiness and the OpenAPI description.
import { stringify } from 'yaml';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { buildOpenApiDocument } from '../openapi/openapi-document.ts';
import { ApiError } from '../../errors/api-error.ts';
import { errorDocument } from '../../errors/error-document.ts';
import { jsonApiAnswer } from '../documents/json-api.ts';
import { ReadinessProbe, serviceTables, type Readiness } from './readiness-probe.ts';
import type { CustomRouteDocs } from '../openapi/custom-route-docs.ts';

function unreadyDetail(readiness: Readiness): string {
  if (readiness.status === 'closing') return 'The service is shutting down';
  if (readiness.database !== 'ok') return 'The database does not answer';
  return `Migrations are not applied: missing tables ${(readiness.missingTables ?? []).join(', ')}`;
}

export async function registerMetaRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'config' | 'store' | 'registry'>,
  custom?: CustomRouteDocs,
): Promise<void> {
  // The document depends only on the resource definitions: built once, and again when they are replaced.
  // The YAML form is made on its first request: most deployments are read as JSON, and the YAML of a
  // large API is a string of a megabyte held for nothing.
  let openApi: { json: string; yaml?: string } | null = null;
  const document = () => {
    if (openApi) return openApi;
    const built = buildOpenApiDocument(ctx.registry, ctx.config);
    // A hooks file's routes that declare a schema (registered after these routes: see onReady below).
    if (custom && custom.size > 0) built.paths = { ...(built.paths as Record<string, unknown>), ...custom.paths() };
    openApi = { json: JSON.stringify(built) };
    return openApi;
  };
  ctx.registry.onReplaced(() => {
    openApi = null;
  });
  document();
  // The custom routes are registered last: the document is built again with them once all are in.
  if (custom) {
    app.addHook('onReady', async () => {
      if (custom.size > 0) openApi = null;
    });
  }

  app.get('/openapi.json', async (_request, reply) => reply.type('application/json').send(document().json));
  app.get('/openapi.yaml', async (_request, reply) => {
    const built = document();
    built.yaml ??= stringify(JSON.parse(built.json), { aliasDuplicateObjects: false });
    return reply.type('application/yaml').send(built.yaml);
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  const probe = new ReadinessProbe(ctx.store, () =>
    serviceTables(ctx.registry.all().map((resource) => resource.table)),
  );
  // preClose runs before the server stops accepting and the workers drain: readiness fails first.
  app.addHook('preClose', async () => probe.markClosing());
  app.get('/readyz', async (request, reply) => {
    const { readiness, cause } = await probe.check();
    if (readiness.status === 'ready') return reply.send(readiness);
    if (cause !== undefined) request.log.warn({ err: cause, readiness }, 'not ready');
    // A JSON:API error like every other failure, with the individual checks in `meta` for operators.
    const document = errorDocument(new ApiError('SERVICE_UNAVAILABLE', unreadyDetail(readiness)));
    return jsonApiAnswer(reply, 503, { ...document, meta: readiness });
  });
}
