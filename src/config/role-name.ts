// What a role name may be, wherever one is written: under a resource's `permissions`, in `roles:`,
// `auth.defaultRole`, a user's primaryRole and allowedRoles, and the X-Service-Role header.

export const MAX_ROLE_LENGTH = 100;

/** A problem with a role name, or undefined when it is usable. */
export function roleNameProblem(role: unknown): string | undefined {
  if (typeof role !== 'string' || role.trim() === '') return 'a role must be a non-empty string';
  if (role !== role.trim()) return 'a role must not start or end with spaces';
  if (role.length > MAX_ROLE_LENGTH) return `a role must be at most ${MAX_ROLE_LENGTH} characters long`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
  if (/[\u0000-\u001f\u007f]/.test(role)) return 'a role must not contain control characters';
  return undefined;
}
