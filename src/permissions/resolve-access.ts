// Decides an action for a caller: the role's rule, narrowed by the key's scoped permissions (spec 2.2).
import type { Action, ActionRule } from '../config/config-types.ts';
import type { Resource } from '../resources/resource.ts';
import { sessionVariablesOf } from '../model/session-variables.ts';
import type { KeyPermissions, Principal } from '../model/principal.ts';
import { ApiError, type ErrorIssue } from '../errors/api-error.ts';
import type { ErrorCode } from '../errors/error-catalogue.ts';
import type { AccessGrant } from '../model/access-grant.ts';
import { compileFilter } from '../query/compile-filter.ts';
import { MATCH_ALL } from '../model/filter-node.ts';

const ADMIN_ACTIONS: ReadonlySet<Action> = new Set(['read', 'delete']);

/** A refusal, kept so a repeated request is refused without recomputing it. */
interface Denial {
  readonly denied: ErrorCode;
  readonly issues: readonly ErrorIssue[];
}

type Decision = AccessGrant | Denial;

/**
 * A grant depends only on the resource, the action, the role, the user (session variables) and the key's
 * scopes, all fixed for the life of a cached key, so each combination is worked out once. Scoped keys are
 * keyed by their permissions object, which lives as long as the key's cache entry (a WeakMap lets it go).
 */
const UNSCOPED = new WeakMap<Resource, Map<string, Decision>>();
const SCOPED = new WeakMap<KeyPermissions, WeakMap<Resource, Map<string, Decision>>>();
/** Bounds memory when many users hit one process; a full map starts over. */
const MAX_DECISIONS_PER_RESOURCE = 10_000;

function decisionsFor(resource: Resource, principal: Principal): Map<string, Decision> {
  let byResource: WeakMap<Resource, Map<string, Decision>> = UNSCOPED;
  if (principal.kind === 'key' && principal.keyPermissions !== null) {
    byResource = SCOPED.get(principal.keyPermissions) ?? new WeakMap();
    SCOPED.set(principal.keyPermissions, byResource);
  }
  let decisions = byResource.get(resource);
  if (!decisions) {
    decisions = new Map();
    byResource.set(resource, decisions);
  }
  return decisions;
}

/** The grant for an action, or the ApiError that refuses it. Grants are shared: never mutate one. */
export function resolveAccess(resource: Resource, principal: Principal, action: Action): AccessGrant {
  const decision = decisionOf(resource, principal, action);
  if ('denied' in decision)
    throw new ApiError(
      decision.denied,
      decision.issues.map((issue) => ({ ...issue })),
    );
  return decision;
}

/**
 * The grant for an action, or undefined when it is refused: for callers that only ask (a read's
 * `meta.can`), so a refusal costs no Error and its stack trace on every request.
 */
export function grantIfAllowed(resource: Resource, principal: Principal, action: Action): AccessGrant | undefined {
  const decision = decisionOf(resource, principal, action);
  return 'denied' in decision ? undefined : decision;
}

function decisionOf(resource: Resource, principal: Principal, action: Action): Decision {
  const decisions = decisionsFor(resource, principal);
  const key =
    principal.kind === 'admin' ? `admin\u0000${action}` : `${action}\u0000${principal.role}\u0000${principal.userId}`;
  let decision = decisions.get(key);
  if (!decision) {
    try {
      decision = decide(resource, principal, action);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      decision = { denied: error.code, issues: error.issues };
    }
    if (decisions.size >= MAX_DECISIONS_PER_RESOURCE) decisions.clear();
    decisions.set(key, decision);
  }
  return decision;
}

function decide(resource: Resource, principal: Principal, action: Action): AccessGrant {
  if (principal.kind === 'admin') {
    if (!ADMIN_ACTIONS.has(action)) {
      throw new ApiError(
        'ADMIN_TOKEN_NOT_ALLOWED',
        'The admin token may only read and delete through resource endpoints',
      );
    }
    return { fields: new Set(resource.fieldNames), filter: MATCH_ALL, check: null, preset: {} };
  }
  const roleRules = resource.permissions.get(principal.role);
  const rule = roleRules !== undefined && Object.hasOwn(roleRules, action) ? roleRules[action] : undefined;
  if (rule === undefined) {
    throw new ApiError('FORBIDDEN', `Role '${principal.role}' may not ${action} ${resource.name}`);
  }
  const normalized: ActionRule = rule === true ? {} : rule;
  let fields = new Set(
    normalized.fields === undefined || normalized.fields === '*'
      ? resource.fieldNames
      : normalized.fields.filter((f) => resource.fields.has(f)),
  );
  if (principal.keyPermissions !== null) {
    // Stored permissions are plain objects read from JSON: only their own members grant anything.
    const scopes = Object.hasOwn(principal.keyPermissions, resource.name)
      ? principal.keyPermissions[resource.name]
      : undefined;
    const keyFields = scopes !== undefined && Object.hasOwn(scopes, action) ? scopes[action] : undefined;
    if (!Array.isArray(keyFields)) {
      throw new ApiError('KEY_PERMISSION_DENIED', `This API key may not ${action} ${resource.name}`);
    }
    if (!keyFields.includes('*')) {
      const allowed = new Set(keyFields);
      fields = new Set([...fields].filter((f) => allowed.has(f)));
    }
  }
  const vars = sessionVariablesOf(principal);
  const preset: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(normalized.preset ?? {})) {
    preset[field] = value === '$userId' ? vars.userId : value === '$role' ? vars.role : value;
  }
  return {
    fields,
    filter: normalized.filter ? compileFilter(normalized.filter, resource, vars) : MATCH_ALL,
    check: normalized.check ? compileFilter(normalized.check, resource, vars) : null,
    preset,
  };
}
