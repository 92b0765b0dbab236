// The identity component's signing secret (docs/configuration.md): SVC_SECRET, else, on a database file of
// this machine's (SQLite) only, one generated at first start and kept in `<dataDir>/secret` (mode 0600).
// A database server (PostgreSQL) is shared by processes on several machines that must agree on it, so
// there it has to be given.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SvcConfig } from '../../config/config-types.ts';
import type { Store } from '../../store/create-store.ts';

const MIN_SECRET_LENGTH = 32;

export function resolveIdentitySecret(
  config: Pick<SvcConfig, 'dataDir'>,
  store: Pick<Store, 'dialect'>,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const given = env.SVC_SECRET?.trim();
  if (given) {
    if (given.length < MIN_SECRET_LENGTH) {
      throw new Error(
        `SVC_SECRET is too short: use at least ${MIN_SECRET_LENGTH} random characters (e.g. \`openssl rand -base64 32\`)`,
      );
    }
    return given;
  }
  if (store.dialect.sharedAcrossMachines) {
    throw new Error(
      `SVC_SECRET is required with ${store.dialect.label}: every process of the deployment must sign sessions with the same secret. ` +
        'Set it to at least 32 random characters (e.g. `openssl rand -base64 32`).',
    );
  }
  const path = join(config.dataDir, 'secret');
  try {
    const stored = readFileSync(path, 'utf8').trim();
    if (stored.length >= MIN_SECRET_LENGTH) return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(32).toString('base64url');
  // Owner-only, whatever the umask: the folder holds this secret and, by default, the database.
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // `wx`: if another process created the file in the meantime, fail and use theirs instead.
  try {
    writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readFileSync(path, 'utf8').trim();
  }
}

/** SVC_SECRET_PREVIOUS: the secret before a rotation, which still opens what it sealed (docs/operations.md). */
export function previousServiceSecret(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.SVC_SECRET_PREVIOUS?.trim() || undefined;
}
