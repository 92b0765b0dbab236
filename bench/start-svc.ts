// Fallback used only when `bin/svc.js` cannot start (the CLI is mid-change): the same steps as
// `svc start --config FILE --port N` (load and validate the config, build the app, listen, shut down on
// SIGTERM), without the rest of the CLI. run.ts notes in its output when this was used.
import { resolve } from 'node:path';
import { closeOnSignals, startServer } from '../src/server.ts';
import { loadConfig } from '../src/resources/config-loader.ts';

const [, , configFile, portText] = process.argv;
const config = await loadConfig({ file: configFile });
// The config file too: a `hooks:` file is found next to it.
const server = await startServer(
  { ...config, server: { ...config.server, port: Number(portText) } },
  { configFile: resolve(configFile!) },
);
closeOnSignals(server);
process.stdout.write(`listening on ${server.url}\n`);
