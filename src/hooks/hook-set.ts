// A hooks definition checked and indexed: which functions run for a resource's write, '*' first. Built
// once per load, so a write asks a Map, never the application's object (whose keys are user text).
import { isRecord } from '../tools/is-record.ts';
import { HOOK_NAMES, type HookName, type RoutesFunction } from './hook-types.ts';

// The functions are the application's, with its own argument types: the runner calls them with the
// matching context (hook-runner.ts), so here they are kept as functions of one argument.
export type HookFunction = (context: never) => unknown;

export interface NamedHook {
  readonly name: HookName;
  /** '*' or the resource the hook was defined for (for logs and the failure metric). */
  readonly owner: string;
  readonly run: HookFunction;
}

type HooksOf = ReadonlyMap<HookName, readonly NamedHook[]>;

/** The problems of a hooks definition, one line each. */
export class HooksDefinitionError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(problems.join('; '));
    this.name = 'HooksDefinitionError';
    this.problems = problems;
  }
}

const KNOWN = new Set<string>(HOOK_NAMES);

export class HookSet {
  readonly routes: RoutesFunction | undefined;
  readonly #star: ReadonlyMap<HookName, NamedHook>;
  readonly #own: ReadonlyMap<string, ReadonlyMap<HookName, NamedHook>>;
  /** Per resource: '*' and its own, built on first use. */
  readonly #combined = new Map<string, HooksOf>();

  static readonly EMPTY = new HookSet(new Map(), new Map(), undefined);

  private constructor(
    star: ReadonlyMap<HookName, NamedHook>,
    own: ReadonlyMap<string, ReadonlyMap<HookName, NamedHook>>,
    routes: RoutesFunction | undefined,
  ) {
    this.#star = star;
    this.#own = own;
    this.routes = routes;
  }

  /** Checks `definition` against the resources defined now; throws HooksDefinitionError naming every problem. */
  static of(definition: unknown, resourceNames: readonly string[]): HookSet {
    if (!isRecord(definition))
      throw new HooksDefinitionError(['the default export must be an object: export default defineHooks({ ... })']);
    const problems: string[] = [];
    const resources = new Set(resourceNames);
    let routes: RoutesFunction | undefined;
    let star: Map<HookName, NamedHook> = new Map();
    const own = new Map<string, Map<HookName, NamedHook>>();
    for (const key of Object.keys(definition)) {
      const value = definition[key];
      if (key === 'routes') {
        if (typeof value === 'function') routes = value as RoutesFunction;
        else problems.push('routes must be a function (app, { records }) => { ... }');
        continue;
      }
      if (key !== '*' && !resources.has(key)) {
        problems.push(
          `hooks for '${key}': no such resource (the resources are ${[...resources].join(', ') || 'none'})`,
        );
        continue;
      }
      if (!isRecord(value)) {
        problems.push(`hooks for '${key}' must be an object of hook functions`);
        continue;
      }
      const hooks = new Map<HookName, NamedHook>();
      for (const name of Object.keys(value)) {
        const hook = value[name];
        if (!KNOWN.has(name)) problems.push(`'${key}'.${name}: not a hook (the hooks are ${HOOK_NAMES.join(', ')})`);
        else if (typeof hook !== 'function') problems.push(`'${key}'.${name} must be a function`);
        else hooks.set(name as HookName, { name: name as HookName, owner: key, run: hook as HookFunction });
      }
      if (key === '*') star = hooks;
      else own.set(key, hooks);
    }
    if (problems.length > 0) throw new HooksDefinitionError(problems);
    return new HookSet(star, own, routes);
  }

  /** Some hook runs for writes of `resource`. */
  touches(resource: string): boolean {
    return this.#star.size > 0 || (this.#own.get(resource)?.size ?? 0) > 0;
  }

  /** The hooks named `name` for `resource`, '*' first; empty when there are none. */
  hooks(resource: string, name: HookName): readonly NamedHook[] {
    let combined = this.#combined.get(resource);
    if (!combined) {
      const built = new Map<HookName, NamedHook[]>();
      for (const hookName of HOOK_NAMES) {
        const list = [this.#star.get(hookName), this.#own.get(resource)?.get(hookName)].filter(
          (hook): hook is NamedHook => hook !== undefined,
        );
        if (list.length > 0) built.set(hookName, list);
      }
      combined = built;
      this.#combined.set(resource, combined);
    }
    return combined.get(name) ?? NONE;
  }
}

const NONE: readonly NamedHook[] = Object.freeze([]);
