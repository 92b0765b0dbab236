// POST /admin/reload: what SIGHUP does, for operators who cannot reach the process with a signal (a
// container, `npm start`, whose signal reaches npm rather than node): read the config file again and
// apply its resource definitions here; every other node on the database adopts them. The hooks file
// it names is loaded again here (each node loads its own). Other settings take effect at the next start.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { loadConfiguredHooks } from '../../hooks/hooks-loader.ts';
import { HooksFileError } from '../../hooks/load-hooks-file.ts';
import { HooksDefinitionError } from '../../hooks/hook-set.ts';
import { ConfigError } from '../../config/load-config.ts';
import { loadConfig } from '../../resources/config-loader.ts';
import { ApiError } from '../../errors/api-error.ts';
import { DestructiveChangeError } from '../../store/destructive-change.ts';
import { jsonApiAnswer } from '../documents/json-api.ts';
import { requireAdmin } from '../guards/require-admin.ts';
import { refuseModifiedJsonApiAccept } from '../documents/json-api-negotiation.ts';

export async function registerAdminReloadRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'auth' | 'definitions' | 'hooks'>,
): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRequest', requireAdmin(ctx));
    scope.addHook('preParsing', refuseModifiedJsonApiAccept);
    scope.post('/admin/reload', { config: { requestBody: 'none' } }, async (request, reply) => {
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
      // The hooks first: a file that fails changes nothing, neither the hooks nor the definitions.
      let hooks;
      try {
        hooks = await loadConfiguredHooks(ctx.hooks, config, file);
      } catch (error) {
        if (error instanceof HooksFileError || error instanceof HooksDefinitionError) {
          throw new ApiError(
            'BAD_REQUEST',
            `The hooks of ${file} do not load; the running hooks and definitions stay: ${error.message}`,
          );
        }
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
      if (hooks) ctx.hooks.replace(hooks.set);
      request.log.info({ changed, file, hooks: hooks?.file }, 'resource definitions reloaded through the admin API');
      return jsonApiAnswer(reply, 200, {
        meta: {
          changed,
          source: file,
          resources: Object.keys(config.resources),
          ...(hooks ? { hooks: hooks.file } : {}),
        },
      });
    });
  });
}
