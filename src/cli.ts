// The `svc` command (docs/configuration.md): start, plan, check, openapi, users create, admin-token.
import { parseArgs } from 'node:util';
import { findConfigFile, loadConfig, ConfigError } from './config/load-config.ts';
import type { SvcConfig } from './config/config-types.ts';
import { DestructiveChangeError } from './store/apply-resource-schema.ts';
// Each command imports what it needs when it runs: `svc check` should not load the HTTP server.

const USAGE = `Usage:
  svc start [--config FILE] [--port N] [--host H] [--allow-destructive]
  svc plan [--config FILE]
  svc check [--config FILE]
  svc openapi [--config FILE] [--yaml]
  svc users create --email E --password P [--role R] [--allowed-roles a,b] [--verified] [--config FILE]
  svc admin-token [--rotate] [--config FILE]`;

const OPTIONS = {
  config: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'allow-destructive': { type: 'boolean' },
  yaml: { type: 'boolean' },
  email: { type: 'string' },
  password: { type: 'string' },
  role: { type: 'string' },
  'allowed-roles': { type: 'string' },
  verified: { type: 'boolean' },
  rotate: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export type CliValues = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

async function configWith(values: CliValues): Promise<SvcConfig> {
  const config = await loadConfig({ file: values.config });
  if (values.port === undefined && values.host === undefined) return config;
  const port = values.port === undefined ? config.server.port : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError([{ path: 'server.port', message: `--port must be 0-65535, got ${values.port}` }]);
  return { ...config, server: { ...config.server, port, host: values.host ?? config.server.host } };
}

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, sub] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return command || values.help ? 0 : 2;
  }
  try {
    switch (command) {
      case 'start': {
        const { closeOnSignals, reloadOnHangup, startServer } = await import('./server.ts');
        const { file: configFile } = await findConfigFile({ file: values.config });
        const server = await startServer(await configWith(values), { allowDestructive: values['allow-destructive'] === true, configFile });
        closeOnSignals(server);
        reloadOnHangup(server, () => loadConfig({ file: values.config }));
        process.stdout.write(`listening on ${server.url}\n`);
        return await new Promise<number>(() => {});
      }
      case 'plan':
        return await (await import('./cli-plan.ts')).runPlanCommand(await loadConfig({ file: values.config }));
      case 'check': {
        const { checkConfigFile } = await import('./config/check-config.ts');
        const result = await checkConfigFile(values.config);
        (result.ok ? process.stdout : process.stderr).write(`${result.lines.join('\n')}\n`);
        return result.ok ? 0 : 1;
      }
      case 'openapi': {
        const [{ stringify }, { ResourceRegistry }, { buildOpenApiDocument }] = await Promise.all([
          import('yaml'),
          import('./resources/resource-registry.ts'),
          import('./resources/openapi-document.ts'),
        ]);
        const config = await loadConfig({ file: values.config });
        const document = buildOpenApiDocument(new ResourceRegistry(config), config);
        process.stdout.write(values.yaml ? stringify(document, { aliasDuplicateObjects: false }) : `${JSON.stringify(document, null, 2)}\n`);
        return 0;
      }
      case 'users':
        if (sub !== 'create') break;
        return await (await import('./cli-accounts.ts')).runUsersCommand(await loadConfig({ file: values.config }), values);
      case 'admin-token':
        return await (await import('./cli-accounts.ts')).runAdminTokenCommand(await loadConfig({ file: values.config }), values);
      default:
        break;
    }
    process.stderr.write(`Unknown command: ${positionals.join(' ')}\n${USAGE}\n`);
    return 2;
  } catch (error) {
    if (error instanceof ConfigError || error instanceof DestructiveChangeError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
