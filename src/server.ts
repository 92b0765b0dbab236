// Runs the service: builds the runtime from the config and mounts HTTP on it, listens, and shuts down
// gracefully on SIGTERM/SIGINT.
import type { FastifyInstance } from 'fastify';
import { mountApp } from './app.ts';
import type { AppContext } from './app-context.ts';
import type { SvcConfig } from './config/config-types.ts';
import { collectAllGarbage } from './tools/collect-garbage.ts';
import { limitHeapGrowth } from './tools/heap-growth.ts';
import { chooseLogFormat } from './logging/log-format.ts';
import { prettyLogStream } from './logging/pretty-log-stream.ts';
import { createRuntime, type RuntimeOptions } from './runtime.ts';
import { createServiceLogger, type ServiceLoggerOptions } from './logging/service-logger.ts';
import { loadConfiguredHooks } from './hooks/hooks-loader.ts';
import { isIPv6 } from 'node:net';

// An address as a URL writes it: an IPv6 literal goes in brackets (http://[::1]:3000).
function urlHost(host: string): string {
  return isIPv6(host) ? `[${host}]` : host;
}

export interface BuildAppOptions extends Omit<RuntimeOptions, 'log'> {
  /** Log lines and where they go (default: none). */
  logger?: ServiceLoggerOptions;
  /** Start the event dispatcher, webhook worker, cluster signals and retention job (default true). */
  startWorkers?: boolean;
}

export interface BuiltApp {
  app: FastifyInstance;
  ctx: AppContext;
}

/** The service's components and its HTTP app on them, workers started; it does not listen. */
export async function buildApp(options: BuildAppOptions): Promise<BuiltApp> {
  const { logger, startWorkers, ...runtimeOptions } = options;
  const log = createServiceLogger(logger);
  const runtime = await createRuntime({ ...runtimeOptions, log });
  // A route that cannot be mounted (a hooks file's route that shadows a generated one) ends the start:
  // the runtime built for it must not keep the process alive.
  const app = await mountApp(runtime, logger ? { log } : {}).catch(async (error: unknown) => {
    await runtime.close();
    throw error;
  });
  if (startWorkers !== false) await runtime.start();
  return { app, ctx: runtime.context };
}

export interface RunningServer {
  app: FastifyInstance;
  ctx: AppContext;
  url: string;
  /** The address it listens on, as configured (`url` has the port chosen when the config says 0). */
  host: string;
  close(): Promise<void>;
}

export async function startServer(
  config: SvcConfig,
  options: { allowDestructive?: boolean; logLevel?: string; configFile?: string } = {},
): Promise<RunningServer> {
  limitHeapGrowth();
  const logFormat = chooseLogFormat(process.stdout.isTTY === true, process.env);
  collectAllGarbage();
  const { app, ctx } = await buildApp({
    config,
    allowDestructive: options.allowDestructive === true,
    ...(options.configFile !== undefined ? { configFile: options.configFile } : {}),
    logger: {
      level: options.logLevel ?? process.env.LOG_LEVEL ?? 'info',
      redact: {
        paths: ['req.headers.authorization', 'req.query.token', 'password', '*.password', 'key', '*.key'],
        censor: '[redacted]',
      },
      ...(logFormat === 'pretty' ? { stream: prettyLogStream() } : {}),
    },
  });
  collectAllGarbage();
  await app.listen({ port: config.server.port, host: config.server.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.server.port;
  const url = `http://${urlHost(config.server.host)}:${port}`;
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= app.close());
  return { app, ctx, url, host: config.server.host, close };
}

/** SIGTERM/SIGINT: stop accepting, let in-flight requests finish, close, exit — within a bound. */
export function closeOnSignals(server: RunningServer, graceMs = 10_000): void {
  const shutdown = (signal: string) => {
    server.app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      server.app.log.error('shutdown took too long; exiting');
      process.exit(1);
    }, graceMs);
    timer.unref();
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

/**
 * SIGHUP: read the config file again and apply its resource definitions (new resources, fields,
 * permissions) and the hooks file it names without a restart; the other nodes on the same database
 * follow the definitions (each loads its own hooks). Other settings (port, database, auth) take effect
 * at the next start. A config or hooks file that is invalid, or a change that would lose data, is
 * refused with the reason in the log, and the running definitions and hooks stay.
 */
export function reloadOnHangup(server: RunningServer, load: () => Promise<SvcConfig>): void {
  let reloading = false;
  process.on('SIGHUP', () => {
    if (reloading) return;
    reloading = true;
    const log = server.app.log;
    log.info('SIGHUP: reloading resource definitions from the config file');
    const { definitions, hooks } = server.ctx;
    load()
      .then(async (config) => {
        const loaded = await loadConfiguredHooks(hooks, config, definitions.source);
        const changed = await definitions.apply(config.resources);
        if (loaded) {
          hooks.replace(loaded.set);
          log.info({ file: loaded.file }, 'hooks reloaded');
        }
        return changed;
      })
      .then(
        (changed) =>
          log.info({ changed }, changed ? 'resource definitions reloaded' : 'resource definitions unchanged'),
        (error: unknown) =>
          log.error({ err: error }, 'reloading the config failed; the running definitions and hooks stay'),
      )
      .finally(() => {
        reloading = false;
      });
  });
}
