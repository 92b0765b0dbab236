// Runs the application's hooks (docs/hooks.md). The record service calls `before` inside each write's
// transaction (records/write-hooks.ts is the whole interface), so every write path gets them: a
// resource route, a batch, a custom route, another hook's write. After the commit the service's
// committed-events listener runs the after hooks. `replace` swaps the hooks a reload loaded; a write
// already running keeps the ones it started with.
import type { FastifyBaseLogger } from 'fastify';
import type { Principal } from '../model/principal.ts';
import { ApiError } from '../errors/api-error.ts';
import { refusalAsApiError } from '../errors/refusal.ts';
import type { EventKind, RecordEvent } from '../model/record-event.ts';
import type { LikePatternLimits } from '../query/like-pattern-limits.ts';
import type { Counter } from '../metrics/counter.ts';
import type { BeforeWrite, RecordService, RequestMeta, WriteHooks, WriteKind } from '../records/record-service.ts';
import type { ResourceRegistry } from '../resources/resource-registry.ts';
import { markOwnFailure } from '../store/own-failure.ts';
import { callerView } from './caller-view.ts';
import { HookSet, type NamedHook } from './hook-set.ts';
import type { AfterContext, HookName, Records } from './hook-types.ts';
import { AccessorLifetime, accessorErrors, createRecords } from './record-accessor.ts';
import { serviceTarget } from './service-target.ts';

const BEFORE: Readonly<Record<WriteKind, HookName>> = {
  create: 'beforeCreate',
  update: 'beforeUpdate',
  delete: 'beforeDelete',
};
const AFTER: Readonly<Record<EventKind, HookName>> = {
  created: 'afterCreate',
  updated: 'afterUpdate',
  deleted: 'afterDelete',
};

/** Hooks that write records whose hooks write records…: a chain this deep is a loop. */
export const MAX_HOOK_DEPTH = 8;

const TIMED_OUT = Symbol('hook timed out');

export interface HookRunnerOptions {
  records: RecordService;
  registry: ResourceRegistry;
  log: FastifyBaseLogger;
  timeoutMs: number;
  /** The bounds of LIKE patterns in the lists hooks and custom routes make (as /v1's). */
  likeLimits: LikePatternLimits;
  /** Hook failures (not refusals), by hook and resource. */
  failures: Counter<'hook' | 'resource'>;
}

export class HookRunner implements WriteHooks {
  readonly #records: RecordService;
  readonly #registry: ResourceRegistry;
  readonly #log: FastifyBaseLogger;
  readonly #timeoutMs: number;
  readonly likeLimits: LikePatternLimits;
  readonly #failures: Counter<'hook' | 'resource'>;
  #set: HookSet = HookSet.EMPTY;
  #attached = false;
  /** Who made each change, for its after hooks (an event alone names the user and role, not the key). */
  readonly #callers = new WeakMap<RecordEvent, Principal>();

  constructor(options: HookRunnerOptions) {
    this.#records = options.records;
    this.#registry = options.registry;
    this.#log = options.log;
    this.#timeoutMs = options.timeoutMs;
    this.likeLimits = options.likeLimits;
    this.#failures = options.failures;
  }

  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** The hooks in force. */
  get current(): HookSet {
    return this.#set;
  }

  /** Checks a definition against `resourceNames` (default: those defined now); HooksDefinitionError names every problem. */
  compile(
    definition: unknown,
    resourceNames: readonly string[] = this.#registry.all().map((resource) => resource.name),
  ): HookSet {
    return HookSet.of(definition, resourceNames);
  }

  /** Puts `set` in force for the writes that start from now on. */
  replace(set: HookSet): void {
    this.#set = set;
    if (!this.#attached && set !== HookSet.EMPTY) {
      // Only once some hooks exist: an application without them pays nothing in its writes.
      this.#attached = true;
      this.#records.useHooks(this);
      this.#records.onCommitted((events) => this.#afterCommit(events));
    }
  }

  touches(resource: string): boolean {
    return this.#set.touches(resource);
  }

  hasBefore(resource: string, kind: WriteKind): boolean {
    return this.#set.hooks(resource, BEFORE[kind]).length > 0;
  }

  noteCaller(event: RecordEvent, principal: Principal): void {
    if (this.#set.hooks(event.resource, AFTER[event.kind]).length > 0) this.#callers.set(event, principal);
  }

  /** Records for code outside a write (a custom route, createSvc's `records`): as `meta`'s caller, or the system. */
  records(meta: RequestMeta | undefined): Records {
    const target = serviceTarget(this.#records, this.likeLimits);
    return createRecords(this.#registry, () => target, meta);
  }

  async before(write: BeforeWrite): Promise<void> {
    const hooks = this.#set.hooks(write.resource.name, BEFORE[write.kind]);
    if (hooks.length === 0) return;
    if (write.depth > MAX_HOOK_DEPTH) {
      throw markOwnFailure(
        new ApiError(
          'HOOK_FAILED',
          `Hooks wrote records ${MAX_HOOK_DEPTH} levels deep (a hook that writes its own resource?); nothing was written`,
        ),
      );
    }
    const lifetime = new AccessorLifetime();
    const context = {
      resource: write.resource.name,
      caller: callerView(write.meta.principal),
      records: createRecords(this.#registry, write.scope, write.meta, lifetime),
      previous: write.previous,
      ...(write.values === null ? {} : { values: write.values }),
    };
    try {
      for (const hook of hooks) await this.#runBounded(hook, context, lifetime, write.meta);
    } finally {
      lifetime.close();
    }
  }

  async #runBounded(hook: NamedHook, context: object, lifetime: AccessorLifetime, meta: RequestMeta): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = setTimeout(() => resolve(TIMED_OUT), this.#timeoutMs);
    });
    try {
      const outcome = await Promise.race([(async () => hook.run(context as never))(), timeout]);
      if (outcome !== TIMED_OUT) return;
      // The transaction is not given up while a call the hook made still runs on it.
      lifetime.close();
      await lifetime.settled();
      this.#failures.inc({ hook: hook.name, resource: hook.owner });
      this.#log.warn(
        { hook: hook.name, resource: hook.owner, requestId: meta.requestId, timeoutMs: this.#timeoutMs },
        'a hook ran out of time; the write was refused',
      );
      throw markOwnFailure(
        new ApiError(
          'HOOK_TIMEOUT',
          `The ${hook.name} hook of ${hook.owner} ran longer than ${this.#timeoutMs} ms; nothing was written`,
          { headers: { 'Retry-After': '1' } },
        ),
      );
    } catch (error) {
      throw this.#answerFor(hook, error, meta);
    } finally {
      clearTimeout(timer);
    }
  }

  /** What a hook's exception answers: its refusal, the error of a records call it let through, or 500. */
  #answerFor(hook: NamedHook, error: unknown, meta: RequestMeta): unknown {
    const refused = refusalAsApiError(error);
    if (refused) return markOwnFailure(refused);
    // A records call's own failure (403, 404, a conflict): answered as the same call through /v1 would be.
    if (typeof error === 'object' && error !== null && accessorErrors.has(error)) return error;
    if (error instanceof ApiError && (error.code === 'HOOK_TIMEOUT' || error.code === 'HOOK_FAILED')) return error;
    this.#failures.inc({ hook: hook.name, resource: hook.owner });
    const where = meta.requestId === undefined ? '' : ` under request id ${meta.requestId}`;
    return markOwnFailure(
      new ApiError(
        'HOOK_FAILED',
        `The ${hook.name} hook of ${hook.owner} failed; nothing was written (the log has the cause${where})`,
        { cause: error },
      ),
    );
  }

  /** After hooks of committed events: run later, apart from the request; a failure is logged and counted. */
  #afterCommit(events: readonly RecordEvent[]): void {
    const set = this.#set;
    for (const event of events) {
      const hooks = set.hooks(event.resource, AFTER[event.kind]);
      if (hooks.length === 0) continue;
      const principal = this.#callers.get(event);
      const caller = principal ? callerView(principal) : callerFromEvent(event);
      for (const hook of hooks) {
        // Each hook gets its own copy: the event object is shared with streams and webhooks.
        const context: AfterContext = { resource: event.resource, caller, event: structuredClone(event) };
        setImmediate(() => {
          void (async () => hook.run(context as never))().catch((error: unknown) => {
            this.#failures.inc({ hook: hook.name, resource: hook.owner });
            this.#log.error(
              {
                err: error,
                hook: hook.name,
                resource: hook.owner,
                eventId: event.id,
                requestId: event.traceContext.requestId,
              },
              'an after-commit hook failed; the write stays',
            );
          });
        });
      }
    }
  }
}

function callerFromEvent(event: RecordEvent): AfterContext['caller'] {
  const { userId, role } = event.sessionVariables;
  return userId === null ? Object.freeze({ admin: true }) : Object.freeze({ userId, role, keyId: '' });
}
