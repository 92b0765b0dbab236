// Creates or extends the identity component's tables with better-auth's own migration planner.
import { getMigrations } from 'better-auth/db/migration';
import type { BetterAuthOptions } from 'better-auth';

export async function migrateIdentity(options: BetterAuthOptions): Promise<void> {
  const { runMigrations } = await getMigrations(options);
  await runMigrations();
}
