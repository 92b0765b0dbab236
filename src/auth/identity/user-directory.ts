// Users for the admin API and the CLI: list and search, read, change roles, name and verification,
// delete, create (with a password, or invited to choose one), send a reset link. Writes go through
// better-auth's internal adapter, so its hooks and encodings apply.
import type { Where } from 'better-auth';
import type { SvcConfig } from '../../config/config-types.ts';
import type { Store } from '../../store/create-store.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Identity } from './identity.ts';
import { userRoleIssues } from './check-user-roles.ts';
import { decodeAllowedRoles, encodeAllowedRoles } from './user-roles.ts';
import { toUserRecord, type IdentityUser, type UserRecord } from './user-record.ts';
import { searchUserIds } from './user-search.ts';

export interface UserListQuery {
  email?: string;
  /** Part of the email address or name, matched literally and case-insensitively. */
  search?: string;
  limit: number;
  offset: number;
}

export interface UserChanges {
  primaryRole?: string;
  allowedRoles?: string[];
  name?: string;
  emailVerified?: boolean;
}

export interface NewUser {
  /** Keep a given id (imports, tests whose filters name users); otherwise one is generated. */
  id?: string;
  email: string;
  /** Absent: the user has no password until they choose one (an invitation, or a reset link). */
  password?: string;
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
  /** Runs `send` (which mails a reset link) so that the link goes out as an invitation. */
  asInvitation?(userId: string, send: () => Promise<void>): Promise<void>;
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export class UserDirectory {
  readonly #identity: Identity;
  readonly #defaultRole: string;
  readonly #hooks: UserDirectoryHooks;
  readonly #definedRoles: () => ReadonlySet<string>;
  readonly #store: Store;
  readonly #passwordsEnabled: boolean;

  /** `definedRoles` answers for the definitions in force now (they can be reloaded while running). */
  constructor(
    identity: Identity,
    config: SvcConfig,
    hooks: UserDirectoryHooks,
    definedRoles: () => ReadonlySet<string>,
    store: Store,
  ) {
    this.#identity = identity;
    this.#store = store;
    this.#passwordsEnabled = config.auth.emailAndPassword?.enabled ?? true;
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
    if (query.search !== undefined) return this.#search(query.search, query);
    const { internalAdapter } = await this.#identity.context;
    const where: Where[] | undefined =
      query.email === undefined ? undefined : [{ field: 'email', value: query.email.trim().toLowerCase() }];
    const [users, total] = await Promise.all([
      internalAdapter.listUsers(query.limit, query.offset, { field: 'createdAt', direction: 'asc' }, where),
      internalAdapter.countTotalUsers(where),
    ]);
    return { users: users.map((u) => toUserRecord(u as IdentityUser, this.#defaultRole)), total };
  }

  async #search(term: string, query: UserListQuery): Promise<{ users: UserRecord[]; total: number }> {
    const { ids, total } = await searchUserIds(this.#store, term, query);
    if (ids.length === 0) return { users: [], total };
    const { internalAdapter } = await this.#identity.context;
    const where: Where[] = [{ field: 'id', operator: 'in', value: ids }];
    if (query.email !== undefined) where.push({ field: 'email', value: query.email.trim().toLowerCase() });
    const found = (await internalAdapter.listUsers(ids.length, 0, undefined, where)) as IdentityUser[];
    // In the search's order (oldest first), which the `in` lookup does not keep.
    const byId = new Map(found.map((user) => [user.id, user]));
    const users = ids.flatMap((id) => {
      const user = byId.get(id);
      return user ? [toUserRecord(user, this.#defaultRole)] : [];
    });
    return { users, total: query.email === undefined ? total : users.length };
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
    if (changes.name !== undefined) data.name = changes.name;
    if (changes.emailVerified !== undefined) data.emailVerified = changes.emailVerified;
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

  /**
   * Mails the user a single-use link to choose a new password (better-auth's reset flow, so its expiry
   * and its effects on sessions and keys apply); `invitation` words it for a new account.
   * undefined when the user does not exist; 409 CONFLICT when password sign-in is off.
   */
  async sendPasswordLink(id: string, invitation = false): Promise<UserRecord | undefined> {
    const user = await this.get(id);
    if (!user) return undefined;
    if (!this.#passwordsEnabled)
      throw new ApiError(
        'CONFLICT',
        'Password sign-in is off (auth.emailAndPassword.enabled): there is no password to set',
      );
    const send = () => this.#identity.requestPasswordReset(user.email);
    await (invitation && this.#hooks.asInvitation ? this.#hooks.asInvitation(id, send) : send());
    return user;
  }

  /** Creates a user (CLI bootstrap, admin API), with a password or none yet; the same hashing and tables as sign-up. */
  async create(input: NewUser): Promise<UserRecord> {
    const context = await this.#identity.context;
    const email = input.email.trim().toLowerCase();
    if (!EMAIL_PATTERN.test(email))
      throw new ApiError('INVALID_RESOURCE_DATA', {
        detail: 'email is not a valid address',
        field: 'email',
      });
    const { minPasswordLength, maxPasswordLength } = context.password.config;
    if (
      input.password !== undefined &&
      (input.password.length < minPasswordLength || input.password.length > maxPasswordLength)
    ) {
      throw new ApiError('INVALID_RESOURCE_DATA', {
        detail: `password must be ${minPasswordLength} to ${maxPasswordLength} characters long`,
        field: 'password',
      });
    }
    this.#requireDefinedRoles({ primaryRole: input.role ?? this.#defaultRole, allowedRoles: input.allowedRoles ?? [] });
    if (await context.internalAdapter.findUserByEmail(email)) {
      throw new ApiError('CONFLICT', {
        detail: `A user with email ${email} already exists`,
        field: 'email',
      });
    }
    if (input.id !== undefined && (await this.#find(input.id))) {
      throw new ApiError('CONFLICT', {
        detail: `A user with id ${input.id} already exists`,
        field: 'id',
      });
    }
    const hash = input.password === undefined ? undefined : await context.password.hash(input.password);
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
    // Without a password there is no credential account yet: the reset flow makes it when one is chosen.
    if (hash === undefined) return toUserRecord(user as IdentityUser, this.#defaultRole);
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
