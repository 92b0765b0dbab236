// The Node flags `npm start` runs svc with (package.json's start script), so the bench measures svc
// as it is started, and the flags are written down once.
import { readFileSync } from 'node:fs';

const START = /^node((?: --[\w-]+(?:=\S+)?)*) bin\/svc\.js start$/;

export function startScriptNodeFlags(packageJsonText: string): string[] {
  const script = (JSON.parse(packageJsonText) as { scripts?: { start?: string } }).scripts?.start ?? '';
  const match = START.exec(script);
  if (!match)
    throw new Error(`package.json's start script is not "node [--flags] bin/svc.js start": ${JSON.stringify(script)}`);
  return match[1]!
    .trim()
    .split(' ')
    .filter((flag) => flag !== '');
}

export function svcStartFlags(root: string): string[] {
  return startScriptNodeFlags(readFileSync(`${root}/package.json`, 'utf8'));
}
