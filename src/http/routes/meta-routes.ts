// Public endpoints outside /v1: health, readiness and the OpenAPI description.
import { sql } from 'kysely';
import { stringify } from 'yaml';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { buildOpenApiDocument } from '../../resources/openapi-document.ts';
import { ApiError } from '../../errors/api-error.ts';

export async function registerMetaRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // The document depends only on the config, which is frozen: build it once.
  const openApi = buildOpenApiDocument(ctx.registry, ctx.config);
  const openApiJson = JSON.stringify(openApi);
  const openApiYaml = stringify(openApi, { aliasDuplicateObjects: false });

  app.get('/openapi.json', async (_request, reply) => reply.type('application/json').send(openApiJson));
  app.get('/openapi.yaml', async (_request, reply) => reply.type('application/yaml').send(openApiYaml));
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    try {
      await sql`select 1`.execute(ctx.store.db);
      return reply.send({ status: 'ready' });
    } catch (error) {
      throw new ApiError('SERVICE_UNAVAILABLE', 'The database does not answer', { cause: error });
    }
  });
}
