#!/usr/bin/env node
// The `svc` command. Sources are TypeScript, loaded through tsx so there is no build step to forget.
import { register } from 'tsx/esm/api';

register();
// `svc openapi | head` closes the pipe early; that is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
const { main } = await import('../src/cli.ts');
process.exitCode = await main(process.argv.slice(2));
