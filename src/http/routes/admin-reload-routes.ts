// POST /admin/reload: what SIGHUP does, for operators who cannot reach the process with a signal (a
// container, `npm start`, whose signal reaches npm rather than node): read the config file again and
// apply its resource definitions here; every other node on the database adopts them. Other settings
// take effect at the next start.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { ConfigError } from '../../config/load-config.ts';
import { loadConfig } from '../../resources/config-loader.ts';
import { ApiError } from '../../errors/api-error.ts';
import { DestructiveChangeError } from '../../store/destructive-change.ts';
import { jsonApiAnswer } from '../documents/json-api.ts';
import { requireAdmin } from '../guards/require-admin.ts';
import { refuseModifiedJsonApiAccept } from '../documents/json-api-negotiation.ts';

export async function registerAdminReloadRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'auth' | 'definitions'>,
): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRequest', requireAdmin(ctx));
    scope.addHook('preParsing', refuseModifiedJsonApiAccept);
    scope.post('/admin/reload', async (request, reply) => {
      const file = ctx.definitions.source;
      if (file === undefined)
        throw new ApiError(
          'CONFLICT',
          'This server was not started from a config file, so there is nothing to read again',
        );
      let config;
      try {
        config = await loadConfig({ file });
      } catch (error) {
        if (error instanceof ConfigError)
          throw new ApiError(
            'BAD_REQUEST',
            `${file} is not a valid config; the running definitions stay: ${error.message}`,
          );
        throw error;
      }
      let changed: boolean;
      try {
        changed = await ctx.definitions.apply(config.resources, file);
      } catch (error) {
        if (error instanceof DestructiveChangeError)
          throw new ApiError('CONFLICT', `${error.message} The running definitions stay.`);
        throw error;
      }
      request.log.info({ changed, file }, 'resource definitions reloaded through the admin API');
      return jsonApiAnswer(reply, 200, { meta: { changed, source: file, resources: Object.keys(config.resources) } });
    });
  });
}
