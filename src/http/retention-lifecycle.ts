// Ties the retention job to the app's life: it starts when the app is ready and stops (ending its
// current batch) before the workers drain and the database closes.
import type { FastifyInstance } from 'fastify';
import type { ConfigDep, LogDep, RegistryDep, StoreDep } from './route-deps.ts';
import { RETENTION_DEFAULTS } from '../config/config-schema.ts';
import { RetentionJob } from '../retention/retention-job.ts';

export function installRetention(
  app: FastifyInstance,
  ctx: ConfigDep & StoreDep & RegistryDep & LogDep,
  options: { start: boolean },
): RetentionJob {
  const job = new RetentionJob({
    store: ctx.store,
    settings: ctx.config.retention ?? RETENTION_DEFAULTS,
    replayWindow: ctx.config.stream.replayWindow,
    resources: () => ctx.registry.all().map((resource) => resource.name),
    log: ctx.log,
  });
  if (options.start) app.addHook('onReady', async () => job.start());
  app.addHook('preClose', async () => job.stop());
  return job;
}
