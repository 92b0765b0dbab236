// Creates a test user with a given id and role. A role the configuration does not define cannot be
// given to a user; tests that need one (a role removed from the configuration after users got it) get
// the user created with the default role, then its stored role rewritten as an older configuration left it.
import type { AppContext } from '../../src/app-context.ts';
import { definedRoles } from '../../src/config/defined-roles.ts';
import { IDENTITY_TABLES } from '../../src/auth/identity/identity-tables.ts';

export const TEST_PASSWORD = 'correct horse battery staple';

export async function createTestUser(
  ctx: AppContext,
  user: { id: string; email: string; role: string },
): Promise<void> {
  const defined = definedRoles(ctx.config, ctx.registry.definitions).has(user.role);
  await ctx.auth.users.create({
    id: user.id,
    email: user.email,
    password: TEST_PASSWORD,
    role: defined ? user.role : ctx.config.auth.defaultRole,
    verified: true,
  });
  if (!defined)
    await ctx.store.db
      .updateTable(IDENTITY_TABLES.user)
      .set({ primaryRole: user.role })
      .where('id', '=', user.id)
      .execute();
}
