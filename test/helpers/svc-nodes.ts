// Start-up shared by the tests that run real `svc start` processes (fault and multi-node tests): a user
// made with `svc users create` before any node starts, nodes started on one config (the first alone, so
// it creates the tables, the others together on the applied schema), and an API key signed in for.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { SvcProcess } from './svc-process.ts';

const SVC = join(import.meta.dirname, '../../bin/svc.js');

export interface NodeUser {
  email: string;
  password: string;
  role: string;
}

/** `svc users create` with the nodes' config and environment; fails the test with its output if it fails. */
export function createUser(configFile: string, env: NodeJS.ProcessEnv, user: NodeUser): void {
  const created = spawnSync(
    process.execPath,
    [
      SVC,
      'users',
      'create',
      '--config',
      configFile,
      '--email',
      user.email,
      '--password',
      user.password,
      '--role',
      user.role,
    ],
    { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 },
  );
  assert.equal(created.status, 0, created.stderr + created.stdout);
}

/** `count` nodes on one config: the first creates the tables, the others start together after it. */
export async function startNodes(configFile: string, env: NodeJS.ProcessEnv, count: number): Promise<SvcProcess[]> {
  const first = await SvcProcess.start(configFile, env);
  const others = await Promise.all(Array.from({ length: count - 1 }, () => SvcProcess.start(configFile, env)));
  return [first, ...others];
}

/** An API key for the user, from POST /token on `node`. */
export async function signIn(node: SvcProcess, user: Pick<NodeUser, 'email' | 'password'>): Promise<string> {
  const token = await fetch(`${node.baseUrl}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: user.email, password: user.password }),
  });
  assert.equal(token.status, 201, await token.clone().text());
  return ((await token.json()) as { key: string }).key;
}
