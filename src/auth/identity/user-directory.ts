// Users for the admin API and the CLI: list, read, change roles, delete, create with a password.
// Everything goes through better-auth's internal adapter, so its hooks and encodings apply.
import type { Where } from 'better-auth';
import type { SvcConfig } from '../../config/config-types.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Identity } from './identity.ts';
import { userRoleIssues } from './check-user-roles.ts';
import { decodeAllowedRoles, encodeAllowedRoles } from './user-roles.ts';
import { toUserRecord, type IdentityUser, type UserRecord } from './user-record.ts';

export interface UserListQuery {
  email?: string;
  limit: number;
  offset: number;
}

export interface UserChanges {
  primaryRole?: string;
  allowedRoles?: string[];
}

export interface NewUser {
  /** Keep a given id (imports, tests whose filters name users); otherwise one is generated. */
  id?: string;
  email: string;
  password: string;
  name?: string;
  role?: string;
  allowedRoles?: string[];
  verified?: boolean;
}

export interface UserRoles {
  primaryRole: string;
  allowedRoles: string[];
}

export interface UserDirectoryHooks {
  /** A user's roles changed: keys cached with the old roles must be re-read. */
  userChanged(userId: string): void | Promise<void>;
  /** Runs before the user row goes: remove what hangs off it (API keys). */
  userDeleting(userId: string): Promise<void>;
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export class UserDirectory {
  readonly #identity: Identity;
  readonly #defaultRole: string;
  readonly #hooks: UserDirectoryHooks;
  readonly #definedRoles: () => ReadonlySet<string>;

  /** `definedRoles` answers for the definitions in force now (they can be reloaded while running). */
  constructor(
    identity: Identity,
    config: SvcConfig,
    hooks: UserDirectoryHooks,
    definedRoles: () => ReadonlySet<string>,
  ) {
    this.#identity = identity;
    this.#defaultRole = config.auth.defaultRole;
    this.#hooks = hooks;
    this.#definedRoles = definedRoles;
  }

  /** 400 INVALID_RESOURCE_DATA naming each role the configuration does not define. */
  #requireDefinedRoles(roles: { primaryRole?: string; allowedRoles?: readonly string[] }): void {
    const issues = userRoleIssues(roles, this.#definedRoles());
    if (issues.length > 0) throw new ApiError('INVALID_RESOURCE_DATA', issues);
  }

  async list(query: UserListQuery): Promise<{ users: UserRecord[]; total: number }> {
    const { internalAdapter } = await this.#identity.context;
    const where: Where[] | undefined =
      query.email === undefined ? undefined : [{ field: 'email', value: query.email.trim().toLowerCase() }];
    const [users, total] = await Promise.all([
      internalAdapter.listUsers(query.limit, query.offset, { field: 'createdAt', direction: 'asc' }, where),
      internalAdapter.countTotalUsers(where),
    ]);
    return { users: users.map((u) => toUserRecord(u as IdentityUser, this.#defaultRole)), total };
  }

  async get(id: string): Promise<UserRecord | undefined> {
    const user = await this.#find(id);
    return user ? toUserRecord(user, this.#defaultRole) : undefined;
  }

  /** The roles that decide what a user's keys may do; undefined when the user does not exist. */
  async roles(id: string): Promise<UserRoles | undefined> {
    const user = await this.#find(id);
    if (!user) return undefined;
    const record = toUserRecord(user, this.#defaultRole);
    return { primaryRole: record.primaryRole, allowedRoles: decodeAllowedRoles(record.allowedRoles) };
  }

  async update(id: string, changes: UserChanges): Promise<UserRecord | undefined> {
    if (!(await this.#find(id))) return undefined;
    this.#requireDefinedRoles(changes);
    const data: Record<string, unknown> = {};
    if (changes.primaryRole !== undefined) data.primaryRole = changes.primaryRole;
    if (changes.allowedRoles !== undefined) data.allowedRoles = encodeAllowedRoles(changes.allowedRoles);
    if (Object.keys(data).length > 0) {
      const { internalAdapter } = await this.#identity.context;
      await internalAdapter.updateUser(id, data);
      await this.#hooks.userChanged(id);
    }
    return this.get(id);
  }

  async delete(id: string): Promise<boolean> {
    if (!(await this.#find(id))) return false;
    await this.#hooks.userDeleting(id);
    const { internalAdapter } = await this.#identity.context;
    // Deletes the user's sessions and accounts too.
    await internalAdapter.deleteUser(id);
    await this.#hooks.userChanged(id);
    return true;
  }

  /** Creates a user with a password (CLI bootstrap); the same hashing and tables as sign-up. */
  async create(input: NewUser): Promise<UserRecord> {
    const context = await this.#identity.context;
    const email = input.email.trim().toLowerCase();
    if (!EMAIL_PATTERN.test(email))
      throw new ApiError('INVALID_RESOURCE_DATA', {
        detail: 'email is not a valid address',
        pointer: '/data/attributes/email',
      });
    const { minPasswordLength, maxPasswordLength } = context.password.config;
    if (input.password.length < minPasswordLength || input.password.length > maxPasswordLength) {
      throw new ApiError('INVALID_RESOURCE_DATA', {
        detail: `password must be ${minPasswordLength} to ${maxPasswordLength} characters long`,
        pointer: '/data/attributes/password',
      });
    }
    this.#requireDefinedRoles({ primaryRole: input.role ?? this.#defaultRole, allowedRoles: input.allowedRoles ?? [] });
    if (await context.internalAdapter.findUserByEmail(email)) {
      throw new ApiError('CONFLICT', {
        detail: `A user with email ${email} already exists`,
        pointer: '/data/attributes/email',
      });
    }
    if (input.id !== undefined && (await this.#find(input.id))) {
      throw new ApiError('CONFLICT', {
        detail: `A user with id ${input.id} already exists`,
        pointer: '/data/attributes/id',
      });
    }
    const hash = await context.password.hash(input.password);
    const user = await context.internalAdapter.createUser(
      {
        ...(input.id !== undefined ? { id: input.id } : {}),
        email,
        name: input.name ?? email.split('@')[0] ?? email,
        emailVerified: input.verified === true,
        primaryRole: input.role ?? this.#defaultRole,
        allowedRoles: encodeAllowedRoles(input.allowedRoles ?? []),
      },
      { method: 'admin' },
    );
    try {
      await context.internalAdapter.linkAccount({
        userId: user.id,
        providerId: 'credential',
        accountId: user.id,
        password: hash,
      });
    } catch (error) {
      // Without its credential account the user could never sign in: undo rather than leave it half made.
      await context.internalAdapter.deleteUser(user.id);
      throw error;
    }
    return toUserRecord(user as IdentityUser, this.#defaultRole);
  }

  async #find(id: string): Promise<IdentityUser | undefined> {
    const { internalAdapter } = await this.#identity.context;
    return ((await internalAdapter.findUserById(id)) as IdentityUser | null) ?? undefined;
  }
}
