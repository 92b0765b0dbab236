// `svc init [DIR]`: a new project's svc.config.yaml and .env.example, then the next commands to run.
// It never overwrites: if either file exists, it writes neither, so a half-initialised folder cannot
// result from a second run.
import { constants } from 'node:fs';
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { DEFAULT_CONFIG_FILE } from '../config/load-config.ts';
import { STARTER_CONFIG } from './starter-config.ts';
import { STARTER_ENV_EXAMPLE } from './starter-env-example.ts';

export const ENV_EXAMPLE_FILE = '.env.example';

/** A refusal the person can act on: one line, no stack. */
export class InitRefused extends Error {}

export interface InitResult {
  dir: string;
  files: string[];
}

export async function initProject(dirArgument: string | undefined, cwd = process.cwd()): Promise<InitResult> {
  const dir = resolve(cwd, dirArgument ?? '.');
  const targets: [string, string][] = [
    [resolve(dir, DEFAULT_CONFIG_FILE), STARTER_CONFIG],
    [resolve(dir, ENV_EXAMPLE_FILE), STARTER_ENV_EXAMPLE],
  ];
  const existing: string[] = [];
  for (const [file] of targets) if (await exists(file)) existing.push(file);
  if (existing.length > 0) {
    throw new InitRefused(
      `${existing.map((file) => shown(file, cwd)).join(' and ')} already exist${existing.length === 1 ? 's' : ''}; svc init writes nothing over a file (move it away, or choose another folder)`,
    );
  }
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  try {
    // 'wx': a file that appeared since the check is not overwritten either.
    for (const [file, text] of targets) {
      await writeFile(file, text, { flag: 'wx' });
      written.push(file);
    }
  } catch (error) {
    await Promise.all(written.map((file) => rm(file, { force: true })));
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new InitRefused(
        `${shown((error as NodeJS.ErrnoException).path ?? dir, cwd)} appeared while svc init ran; nothing was written`,
      );
    throw error;
  }
  return { dir, files: written };
}

/**
 * What `svc init` prints: the files written, and the three commands that come next, as they are typed in
 * a project that has svc as a local dependency (`npx svc …`; a bare `svc` is not on the shell's PATH).
 */
export function nextSteps(result: InitResult, cwd = process.cwd()): string {
  const here = relative(cwd, result.dir);
  const inside = here === '' ? [] : [`  cd ${here.includes(' ') ? JSON.stringify(here) : here}`];
  return [
    `Wrote ${result.files.map((file) => shown(file, cwd)).join(' and ')}.`,
    '',
    'Next:',
    ...inside,
    '  npx svc check      # validate svc.config.yaml: every problem with its path',
    '  npx svc start      # serve it at http://127.0.0.1:3000; the first start prints the admin token',
    '  npx svc users create --email you@example.com --role manager   # a user who can sign in and get an API key',
  ].join('\n');
}

export async function runInitCommand(dirArgument: string | undefined): Promise<number> {
  try {
    process.stdout.write(`${nextSteps(await initProject(dirArgument))}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof InitRefused)) throw error;
    process.stderr.write(`svc init: ${error.message}\n`);
    return 1;
  }
}

function shown(file: string, cwd: string): string {
  const path = relative(cwd, file);
  return path === '' || path.startsWith('..') ? file : path;
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}
