// The open streams of one app, by API key and by user: bounds how many a key and the node may hold, and
// ends a stream once its right to read is gone (key disabled, deleted, expired or re-scoped; user deleted
// or given other roles; admin token rotated). Changes come from the auth component's access-change notices, which are the
// ones that drop cached keys, local and from other nodes alike; and from resource definitions replaced
// here or on another node, which end the streams whose reading they narrowed.
import type { AccessChange } from '../auth/auth-component.ts';
import type { JwtPrincipal, KeyPrincipal, Principal } from '../model/principal.ts';
import { ApiError } from '../errors/api-error.ts';
import { readNarrowed, type GrantedRead } from '../permissions/read-narrowed.ts';
import type { Resource } from '../resources/resource.ts';

export const DEFAULT_MAX_STREAMS_PER_KEY = 10;
export const DEFAULT_MAX_STREAMS_PER_NODE = 10_000;

/** Longest delay setTimeout keeps; a later expiry is reached in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface StreamLimits {
  maxPerKey: number;
  maxPerNode: number;
  /** Sent as Retry-After (seconds) with a refusal: about when a client may try again. */
  retryAfterSeconds: number;
}

/** `narrowed`: reloaded definitions took away some of what the stream reads. */
export type RevokeReason = 'revoked' | 'expired' | 'narrowed';

/** One open stream as the registry knows it. */
export class StreamSlot {
  readonly principal: Principal;
  /** The X-Service-Role the stream was opened with: a re-check resolves the role the same way. */
  readonly requestedRole: string | undefined;
  /**
   * What the stream was granted and sends, per resource it reads (several for `GET /v1/stream`); empty
   * for a stream registered without it (it is never narrowed).
   */
  readonly reads: readonly GrantedRead[];
  #revoke: ((reason: RevokeReason) => void) | null = null;
  #ended: RevokeReason | null = null;

  constructor(principal: Principal, requestedRole: string | undefined, reads: readonly GrantedRead[] = []) {
    this.principal = principal;
    this.requestedRole = requestedRole;
    this.reads = reads;
  }

  /** How the stream is ended; called at once if it was revoked before its connection existed. */
  attach(revoke: (reason: RevokeReason) => void): void {
    if (this.#ended !== null) revoke(this.#ended);
    else this.#revoke = revoke;
  }

  end(reason: RevokeReason): void {
    if (this.#ended !== null) return;
    this.#ended = reason;
    const revoke = this.#revoke;
    this.#revoke = null;
    revoke?.(reason);
  }
}

export interface StreamRegistryOptions extends StreamLimits {
  /** Whether the key behind `slot` would still be resolved as it was (reads the database). */
  stillValid(slot: StreamSlot): Promise<boolean>;
  /** A re-check that failed (the database is away): the stream is ended, to be safe. */
  onCheckError(error: unknown): void;
  /** A stream closed and its place was freed. */
  onReleased?(): void;
}

export class StreamRegistry {
  readonly #options: StreamRegistryOptions;
  readonly #byKey = new Map<string, Set<StreamSlot>>();
  readonly #byUser = new Map<string, Set<StreamSlot>>();
  readonly #admin = new Set<StreamSlot>();
  readonly #timers = new Map<StreamSlot, NodeJS.Timeout>();
  #open = 0;
  #changes = 0;

  constructor(options: StreamRegistryOptions) {
    this.#options = options;
  }

  /** Open streams on this node. */
  get size(): number {
    return this.#open;
  }

  /**
   * Counts access changes heard so far. A request notes it before it is authenticated; if it moved by
   * the time its stream is registered, a change may have raced the authentication, so the stream is
   * checked again (see `register`).
   */
  get changes(): number {
    return this.#changes;
  }

  /**
   * Takes a place for a stream of `principal`, or throws 429 RATE_LIMITED when the key or the node
   * holds its maximum. Synchronous, so the count and the check cannot be split by another request.
   * A stream of several resources takes one place, as it is one connection.
   */
  register(
    principal: Principal,
    requestedRole: string | undefined,
    changesSeen: number,
    reads: readonly GrantedRead[] = [],
  ): StreamSlot {
    const { maxPerKey, maxPerNode, retryAfterSeconds } = this.#options;
    const headers = { 'Retry-After': String(retryAfterSeconds) };
    if (this.#open >= maxPerNode)
      throw new ApiError('RATE_LIMITED', 'This node serves as many streams as it may; try again later', { headers });
    const slot = new StreamSlot(principal, requestedRole, reads);
    if (principal.kind !== 'admin') {
      const holder = holderOf(principal);
      const ofKey = this.#byKey.get(holder);
      if (ofKey && ofKey.size >= maxPerKey) {
        const who = principal.kind === 'key' ? 'This API key' : "This token's subject";
        throw new ApiError('RATE_LIMITED', `${who} already holds ${maxPerKey} open streams; close one first`, {
          headers,
        });
      }
      add(this.#byKey, holder, slot);
      add(this.#byUser, principal.userId, slot);
      if (principal.expiresAt !== undefined) this.#armExpiry(slot, Date.parse(principal.expiresAt));
      if (changesSeen !== this.#changes) void this.#recheck(slot);
    } else {
      this.#admin.add(slot);
    }
    this.#open += 1;
    return slot;
  }

  /** The stream has closed: frees its place and forgets it. */
  release(slot: StreamSlot): void {
    this.#open -= 1;
    clearTimeout(this.#timers.get(slot));
    this.#timers.delete(slot);
    if (slot.principal.kind === 'admin') {
      this.#admin.delete(slot);
      this.#options.onReleased?.();
      return;
    }
    remove(this.#byKey, holderOf(slot.principal), slot);
    remove(this.#byUser, slot.principal.userId, slot);
    this.#options.onReleased?.();
  }

  /** An access change, local or from another node. */
  changed(change: AccessChange): void {
    this.#changes += 1;
    if ('adminToken' in change) {
      // The admin token was rotated: the request's token is not kept, so every admin stream ends and
      // a reconnection with a token still valid is admitted again.
      for (const slot of [...this.#admin]) slot.end('revoked');
    } else if ('keyId' in change) {
      // Any key change re-checks (renaming a key leaves its streams open; disabling it does not).
      for (const slot of this.#byKey.get(change.keyId) ?? []) void this.#recheck(slot);
    } else {
      // Roles changed or the user is gone: every stream of the user ends. A stream opened under the old
      // role would keep showing that role's rows; the client reconnects and gets its new role.
      for (const slot of [...(this.#byUser.get(change.userId) ?? [])]) slot.end('revoked');
    }
  }

  /**
   * The resource definitions were replaced (a reload here, or one adopted from another node): every
   * stream that would now be given less than it was is ended. `find` looks a resource up in the new
   * definitions. Synchronous, run as the definitions are swapped, so no event is judged by the old
   * rules after a request could see the new ones.
   */
  definitionsReplaced(find: (name: string) => Resource | undefined): void {
    const open = [...this.#admin];
    for (const slots of this.#byKey.values()) open.push(...slots);
    for (const slot of open) {
      let narrowed: boolean;
      try {
        // Any of its resources narrowed ends the whole connection: it cannot go on with fewer.
        narrowed = slot.reads.some((read) => readNarrowed(read, find(read.resource.name), slot.principal));
      } catch (error) {
        // Undecided is narrowed: the stream ends rather than keep rules that may no longer hold.
        this.#options.onCheckError(error);
        narrowed = true;
      }
      if (narrowed) slot.end('narrowed');
    }
  }

  async #recheck(slot: StreamSlot): Promise<void> {
    let valid: boolean;
    try {
      valid = await this.#options.stillValid(slot);
    } catch (error) {
      this.#options.onCheckError(error);
      valid = false;
    }
    if (!valid) slot.end('revoked');
  }

  /** An expiry is a time, not an event: a timer ends the stream then, whether or not anything is written. */
  #armExpiry(slot: StreamSlot, expiresAt: number): void {
    const wait = expiresAt - Date.now();
    if (wait <= 0) {
      queueMicrotask(() => slot.end('expired'));
      return;
    }
    const timer = setTimeout(
      () => {
        if (!this.#timers.has(slot)) return;
        if (wait > MAX_TIMER_MS) this.#armExpiry(slot, expiresAt);
        else slot.end('expired');
      },
      Math.min(wait, MAX_TIMER_MS),
    );
    timer.unref();
    this.#timers.set(slot, timer);
  }
}

/**
 * Whose streams are counted together: a key's, or a JWT subject's (a subject is bounded as a key is;
 * the prefix keeps it apart from key ids, which are UUIDs).
 */
function holderOf(principal: KeyPrincipal | JwtPrincipal): string {
  return principal.kind === 'key' ? principal.keyId : `jwt:${principal.subject}`;
}

function add(map: Map<string, Set<StreamSlot>>, id: string, slot: StreamSlot): void {
  let set = map.get(id);
  if (!set) {
    set = new Set();
    map.set(id, set);
  }
  set.add(slot);
}

function remove(map: Map<string, Set<StreamSlot>>, id: string, slot: StreamSlot): void {
  const set = map.get(id);
  if (!set) return;
  set.delete(slot);
  if (set.size === 0) map.delete(id);
}
