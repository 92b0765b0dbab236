// Public endpoints outside /v1: health, readiness and the OpenAPI description.
import { stringify } from 'yaml';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { buildOpenApiDocument } from '../../resources/openapi-document.ts';
import { ApiError } from '../../errors/api-error.ts';
import { errorDocument } from '../../errors/error-document.ts';
import { sendJsonApi } from '../json-api.ts';
import { ReadinessProbe, serviceTables, type Readiness } from '../readiness-probe.ts';

function unreadyDetail(readiness: Readiness): string {
  if (readiness.status === 'closing') return 'The service is shutting down';
  if (readiness.database !== 'ok') return 'The database does not answer';
  return `Migrations are not applied: missing tables ${(readiness.missingTables ?? []).join(', ')}`;
}

export async function registerMetaRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // The document depends only on the config, which is frozen: build it once.
  const openApi = buildOpenApiDocument(ctx.registry, ctx.config);
  const openApiJson = JSON.stringify(openApi);
  const openApiYaml = stringify(openApi, { aliasDuplicateObjects: false });

  app.get('/openapi.json', async (_request, reply) => reply.type('application/json').send(openApiJson));
  app.get('/openapi.yaml', async (_request, reply) => reply.type('application/yaml').send(openApiYaml));
  app.get('/healthz', async () => ({ status: 'ok' }));
  const probe = new ReadinessProbe(ctx.store, () => serviceTables(ctx.registry.all().map((resource) => resource.table)));
  // preClose runs before the server stops accepting and the workers drain: readiness fails first.
  app.addHook('preClose', async () => probe.markClosing());
  app.get('/readyz', async (request, reply) => {
    const { readiness, cause } = await probe.check();
    if (readiness.status === 'ready') return reply.send(readiness);
    if (cause !== undefined) request.log.warn({ err: cause, readiness }, 'not ready');
    // A JSON:API error like every other failure, with the individual checks in `meta` for operators.
    const document = errorDocument(new ApiError('SERVICE_UNAVAILABLE', unreadyDetail(readiness)));
    return sendJsonApi(reply, 503, { ...document, meta: readiness });
  });
}
