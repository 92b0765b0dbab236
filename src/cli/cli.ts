// The `svc` command (docs/configuration.md): init, start, plan, check, openapi, types, users create, admin-token.
// Each command accepts only its own options (src/cli/cli-commands.ts); a failure is one line on standard
// error and a non-zero exit, with the stack only under LOG_LEVEL=debug.
import { parseArgs } from 'node:util';
import { findConfigFile, ConfigError } from '../config/load-config.ts';
import { loadConfig } from '../resources/config-loader.ts';
import type { SvcConfig } from '../config/config-types.ts';
import { DestructiveChangeError } from '../store/destructive-change.ts';
import { commandHelp, COMMANDS, findCommand, overview, type CliCommand } from './cli-commands.ts';
import { describeCliFailure } from './cli-failure.ts';
import { collectWhileStarting } from '../tools/collect-garbage.ts';
import { keepWasmAtBaselineTier } from '../tools/wasm-baseline-tier.ts';
import { SERVICE_VERSION } from '../metrics/service-version.ts';
import type { CliValues } from './cli-values.ts';

// Each command imports what it needs when it runs: `svc check` should not load the HTTP server.

// What `svc start` prints once it listens: the URL, and when the address is every interface a line that
// says so, since that makes the instance reachable from the network (the default is 127.0.0.1).
const EVERY_INTERFACE = new Set(['0.0.0.0', '::', '::0', '0:0:0:0:0:0:0:0']);

/** `url`: where the server listens, as server.ts writes it; `host`: the address it was given. */
function listenLines(url: string, host: string): string[] {
  const lines = [`listening on ${url}`];
  if (EVERY_INTERFACE.has(host)) {
    lines.push(
      `listening on every interface (${host}): reachable from other machines; HOST=127.0.0.1 serves this machine only`,
    );
  }
  return lines;
}

async function configWith(values: CliValues): Promise<SvcConfig> {
  const config = await loadConfig({ file: values.config });
  if (values.port === undefined && values.host === undefined) return config;
  const port = values.port === undefined ? config.server.port : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError([{ path: 'server.port', message: `--port must be 0-65535, got ${values.port}` }]);
  return { ...config, server: { ...config.server, port, host: values.host ?? config.server.host } };
}

export async function main(argv: string[]): Promise<number> {
  const [first] = argv;
  if (first === undefined) {
    process.stderr.write(`${overview()}\n`);
    return 2;
  }
  if (first === '--version' || first === '-v' || first === 'version') {
    process.stdout.write(`svc ${SERVICE_VERSION}\n`);
    return 0;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    const asked = argv.slice(1);
    if (asked.length === 0) {
      process.stdout.write(`${overview()}\n`);
      return 0;
    }
    const found = findCommand(asked);
    if (!found || found.rest.length > 0) return unknownCommand(asked);
    process.stdout.write(`${commandHelp(found.command)}\n`);
    return 0;
  }
  const found = findCommand(argv);
  if (!found) return unknownCommand(argv.filter((word) => !word.startsWith('-')));
  const { command, rest } = found;
  let values: CliValues;
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: rest,
      options: command.options,
      allowPositionals: command.argument !== undefined,
      strict: true,
    });
    values = parsed.values as CliValues;
    positionals = parsed.positionals;
  } catch (error) {
    process.stderr.write(`svc ${command.name}: ${optionProblem(error as Error)} (see svc ${command.name} --help)\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${commandHelp(command)}\n`);
    return 0;
  }
  if (positionals.length > 1) {
    process.stderr.write(
      `svc ${command.name}: takes one ${command.argument}, got ${positionals.length} (see svc ${command.name} --help)\n`,
    );
    return 2;
  }
  try {
    return await run(command, values, positionals[0]);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof DestructiveChangeError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    process.stderr.write(`svc ${command.name}: ${describeCliFailure(error, values)}\n`);
    if (process.env.LOG_LEVEL === 'debug' && error instanceof Error && error.stack)
      process.stderr.write(`${error.stack}\n`);
    return 1;
  }
}

async function run(command: CliCommand, values: CliValues, argument: string | undefined): Promise<number> {
  switch (command.name) {
    case 'init':
      return await (await import('./init-command.ts')).runInitCommand(argument);
    case 'start': {
      // Before the server's modules load: undici starts compiling its wasm parser as it is imported.
      keepWasmAtBaselineTier();
      // Loading the service's modules leaves about 20 MB of garbage (tools/collect-garbage.ts says why it is collected).
      const { closeOnSignals, reloadOnHangup, startServer } = await collectWhileStarting(() => import('../server.ts'));
      const { file: configFile, origin } = await findConfigFile({ file: values.config });
      if (origin === 'bundled') {
        process.stderr.write(
          `No config file (--config, SVC_CONFIG or ./svc.config.yaml): serving the bundled example ${configFile}. Run svc init to write a config of your own.\n`,
        );
      }
      const server = await startServer(await configWith(values), {
        allowDestructive: values['allow-destructive'] === true,
        configFile,
      });
      closeOnSignals(server);
      reloadOnHangup(server, () => loadConfig({ file: values.config }));
      process.stdout.write(`${listenLines(server.url, server.host).join('\n')}\n`);
      return await new Promise<number>(() => {});
    }
    case 'plan':
      return await (await import('./cli-plan.ts')).runPlanCommand(await loadConfig({ file: values.config }));
    case 'check': {
      const { checkConfigFile } = await import('./check-config.ts');
      const result = await checkConfigFile(values.config);
      (result.ok ? process.stdout : process.stderr).write(`${result.lines.join('\n')}\n`);
      return result.ok ? 0 : 1;
    }
    case 'check-storage':
      return await (await import('./check-storage-command.ts')).runCheckStorageCommand(
        await loadConfig({ file: values.config }),
        values,
      );
    case 'openapi': {
      const [{ stringify }, { ResourceRegistry }, { buildOpenApiDocument }] = await Promise.all([
        import('yaml'),
        import('../resources/resource-registry.ts'),
        import('../http/openapi/openapi-document.ts'),
      ]);
      const config = await loadConfig({ file: values.config });
      const document = buildOpenApiDocument(new ResourceRegistry(config), config);
      process.stdout.write(
        values.yaml ? stringify(document, { aliasDuplicateObjects: false }) : `${JSON.stringify(document, null, 2)}\n`,
      );
      return 0;
    }
    case 'types': {
      const { clientTypes } = await import('./client-types.ts');
      process.stdout.write(clientTypes(await loadConfig({ file: values.config })));
      return 0;
    }
    case 'users create':
      return await (await import('./cli-accounts.ts')).runUsersCommand(
        await loadConfig({ file: values.config }),
        values,
      );
    case 'import':
      return await (await import('./import-command.ts')).runImportCommand(values, argument);
    case 'admin-token':
      return await (await import('./cli-accounts.ts')).runAdminTokenCommand(
        await loadConfig({ file: values.config }),
        values,
      );
    default:
      throw new Error(`no handler for ${command.name}`);
  }
}

function unknownCommand(words: readonly string[]): number {
  process.stderr.write(
    `svc: unknown command '${words.join(' ')}'; the commands are ${COMMANDS.map((c) => c.name).join(', ')} (see svc help)\n`,
  );
  return 2;
}

/** parseArgs' message, in one line: "Unknown option '--rotate'" and the like. */
function optionProblem(error: Error): string {
  const line = error.message.split('\n')[0] ?? error.message;
  return line.replace(/\. To specify a positional argument.*$/, '').replace(/^Unknown option/, 'unknown option');
}
