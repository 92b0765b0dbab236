// Users as the admin API returns them (GET /admin/users), shared by the Users view's parts.

export type User = {
  id: string;
  attributes: {
    email: string;
    name: string;
    emailVerified: boolean;
    primaryRole: string;
    allowedRoles: string;
    createdAt: string;
  };
};

/** `allowedRoles` is stored JSON-encoded: the role names in it, or none when it is unreadable. */
export function allowedOf(user: User): string[] {
  try {
    const parsed = JSON.parse(user.attributes.allowedRoles);
    return Array.isArray(parsed) ? parsed.filter((r): r is string => typeof r === 'string') : [];
  } catch {
    return [];
  }
}
