// The account commands of the CLI: `svc users create` and `svc admin-token [--rotate]`.
import pino from 'pino';
import type { SvcConfig } from '../config/config-types.ts';
import { createStore } from '../store/create-store.ts';
import { createAuthComponent } from '../auth/create-auth-component.ts';
import { createUser } from '../auth/create-user.ts';
import { readStoredAdminTokenHash, rotateAdminToken } from '../auth/admin/stored-admin-token.ts';
import { ApiError } from '../errors/api-error.ts';
import type { CliValues } from './cli-values.ts';
import { ClusterSignals } from '../cluster/cluster-signals.ts';
import { ADMIN_TOKEN_TOPIC } from '../auth/create-auth-component.ts';
import { promptPassword, readPasswordFromStdin } from './read-password.ts';

/** Running servers re-read the stored token when told (they would anyway within a few seconds). */
async function tellRunningServers(store: ReturnType<typeof createStore>): Promise<void> {
  const signals = new ClusterSignals({
    db: store.db,
    dialect: store.dialect,
    log: pino({ level: 'warn' }),
    pollIntervalMs: 1000,
    retentionMs: 3_600_000,
  });
  await signals.migrate();
  await signals.publish(ADMIN_TOKEN_TOPIC, {});
}

export async function runUsersCommand(config: SvcConfig, values: CliValues): Promise<number> {
  if (!values.email) {
    process.stderr.write('svc users create: --email is required (see svc users create --help)\n');
    return 2;
  }
  const password = values['password-stdin']
    ? await readPasswordFromStdin(process.stdin)
    : (values.password ?? (await promptPassword({ stdin: process.stdin, stderr: process.stderr })));
  if (!password) {
    process.stderr.write(
      'svc users create: give the password with --password-stdin, or run it at a terminal to be asked for it\n',
    );
    return 2;
  }
  const store = createStore(config.database.url);
  const auth = await createAuthComponent(config, store, pino({ level: 'warn' }));
  try {
    await auth.migrate();
    const user = await createUser(auth, {
      email: values.email,
      password,
      ...(values.role ? { role: values.role } : {}),
      ...(values['allowed-roles']
        ? {
            allowedRoles: values['allowed-roles']
              .split(',')
              .map((r) => r.trim())
              .filter(Boolean),
          }
        : {}),
      verified: values.verified === true,
    });
    process.stdout.write(`created user ${user.id} <${user.email}> with role ${user.primaryRole}\n`);
    return 0;
  } catch (error) {
    if (error instanceof ApiError) {
      process.stderr.write(`${error.issues.map((i) => i.detail).join('\n')}\n`);
      return 1;
    }
    throw error;
  } finally {
    await auth.close();
    await store.close();
  }
}

export async function runAdminTokenCommand(config: SvcConfig, values: CliValues): Promise<number> {
  if (config.adminToken && !values.rotate) {
    process.stdout.write('The admin token is set by the configuration (adminToken or SVC_ADMIN_TOKEN).\n');
    return 0;
  }
  const store = createStore(config.database.url);
  try {
    if (values.rotate) {
      const token = await rotateAdminToken(store);
      await tellRunningServers(store);
      process.stdout.write(`${token}\n`);
      if (config.adminToken)
        process.stderr.write('Note: the configured adminToken takes precedence over the stored one while it is set.\n');
      return 0;
    }
    const stored = await readStoredAdminTokenHash(store).catch(() => undefined);
    process.stdout.write(
      stored
        ? 'A generated admin token is stored (hashed). Issue a new one with: svc admin-token --rotate\n'
        : 'No admin token yet: one is generated and printed once at the first `svc start`, or set SVC_ADMIN_TOKEN.\n',
    );
    return 0;
  } finally {
    await store.close();
  }
}
