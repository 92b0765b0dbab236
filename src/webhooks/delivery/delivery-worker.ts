// Sends due delivery attempts: claims them in batches under a lease, sends each with per-target
// concurrency, records the outcome, and queues the next attempt on a retryable failure. Several workers
// (processes) may run on one database; a claim is atomic, so no attempt is sent by two of them, and an
// attempt whose worker died is claimed again once its lease expires. While deliveries keep arriving,
// claims and success writes are batched: one claim per `claimIntervalMs` at most, one success write
// per `successLingerMs`, instead of one of each per delivery. Attempts queued by this process's own
// writes are leased to it as they are written (`leaseQueued`) and held once their write commits
// (`holdCommitted`), so most deliveries skip the claim statement altogether.
import { setMaxListeners } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import type { Agent } from 'undici';
import { uuidv7 } from '../../store/uuid-v7.ts';
import { decideOutcome } from './attempt-outcome.ts';
import { CoalescingTrigger } from './coalescing-trigger.ts';
import { buildDeliveryRequest } from './delivery-request.ts';
import type { ClaimedAttempt, DeliveryRepository, QueuedAttempt } from './delivery-repository.ts';
import { effectiveRetryConfig } from '../subscriptions/retry-config.ts';
import type { ExchangeClock } from './exchange-clock.ts';
import { createDeliveryAgent, createSendClock, sendWebhook, type SendResult } from './send-webhook.ts';
import { SuccessBatcher } from './success-batcher.ts';
import type { SubscriptionCache } from '../subscriptions/subscription-cache.ts';
import { TargetLimiter } from '../targets/target-limiter.ts';
import type { StoredSubscription } from '../subscriptions/webhook-subscription.ts';

export interface DeliveryWorkerOptions {
  pollIntervalMs: number;
  timeoutMs: number;
  allowPrivateTargets: boolean;
  /** Attempts held at once (in flight or waiting for a target slot): the global cap. */
  maxHeld?: number;
  /** Requests in flight to one host:port. */
  perTargetConcurrency?: number;
  /** Attempts held for one target before claims skip it and new ones are not leased: in flight plus waiting for a slot. */
  perTargetHeld?: number;
  /** Attempts claimed per statement. */
  batchSize?: number;
  /** How long close() lets in-flight attempts finish before aborting them. */
  closeGraceMs?: number;
  /**
   * Least time between the starts of two claims (a full batch is followed at once). A wake after a
   * quiet spell claims at once; under load, the commits of one interval share one claim.
   */
  claimIntervalMs?: number;
  /** How long the first success after a quiet spell waits for others to share its write. */
  successLingerMs?: number;
}

export interface DeliveryWorkerDeps {
  deliveries: DeliveryRepository;
  subscriptions: SubscriptionCache;
  log: FastifyBaseLogger;
}

const DEFAULTS = {
  maxHeld: 1024,
  perTargetConcurrency: 32,
  batchSize: 128,
  closeGraceMs: 10000,
  claimIntervalMs: 10,
  successLingerMs: 10,
};

export class DeliveryWorker {
  readonly #deps: DeliveryWorkerDeps;
  readonly #options: Required<DeliveryWorkerOptions>;
  /**
   * The lease covers a send that may first wait for its target's slot; it is renewed before sending
   * when less than one timeout plus margin remains, and the margin leaves time to record the outcome.
   */
  readonly #leaseMs: number;
  readonly #renewBelowMs: number;
  readonly #limiter: TargetLimiter;
  readonly #successes: SuccessBatcher;
  readonly #agent: Agent;
  readonly #held = new Map<string, ClaimedAttempt>();
  readonly #heldPerTarget = new Map<string, number>();
  readonly #tasks = new Set<Promise<void>>();
  /** Aborted on close: attempts still waiting for a slot give their claims back. */
  readonly #stopWaiting = new AbortController();
  /** Times every send out; aborted when close's grace period runs out (in-flight sends give their claims back). */
  readonly #sends: ExchangeClock<SendResult>;
  #started = false;
  #closing = false;
  #pollTimer: NodeJS.Timeout | undefined;
  #wakeTimer: NodeJS.Timeout | undefined;
  #wakeAt = Infinity;
  readonly #claims: CoalescingTrigger;
  /** Targets the last claim skipped, and whether it was limited by the global cap: completions re-wake the pump. */
  #skipped = new Set<string>();
  #capped = false;
  /** Attempts leased by `leaseQueued` whose write has not committed yet, by event id, oldest first. */
  readonly #leased = new Map<string, { at: number; attempts: ClaimedAttempt[] }>();
  readonly #leasedPerTarget = new Map<string, number>();
  #leasedCount = 0;
  /** Some queued attempt was not leased since the last commit: it has to be claimed. */
  #claimNeeded = false;

  constructor(deps: DeliveryWorkerDeps, options: DeliveryWorkerOptions) {
    this.#deps = deps;
    const perTarget = options.perTargetConcurrency ?? DEFAULTS.perTargetConcurrency;
    this.#options = {
      maxHeld: DEFAULTS.maxHeld,
      batchSize: DEFAULTS.batchSize,
      closeGraceMs: DEFAULTS.closeGraceMs,
      claimIntervalMs: DEFAULTS.claimIntervalMs,
      successLingerMs: DEFAULTS.successLingerMs,
      perTargetHeld: perTarget * 4,
      ...options,
      perTargetConcurrency: perTarget,
    };
    const margin = Math.min(Math.max(options.timeoutMs / 2, 1000), 10000);
    this.#leaseMs = 2 * options.timeoutMs + margin;
    this.#renewBelowMs = options.timeoutMs + margin;
    this.#limiter = new TargetLimiter(perTarget);
    this.#successes = new SuccessBatcher((settled) => deps.deliveries.settleSuccesses(settled), {
      lingerMs: this.#options.successLingerMs,
    });
    this.#claims = new CoalescingTrigger(
      () =>
        this.#pump().catch((error: unknown) =>
          this.#deps.log.error({ err: error }, 'claiming webhook deliveries failed'),
        ),
      this.#options.claimIntervalMs,
    );
    this.#sends = createSendClock(options.timeoutMs);
    // Every attempt waiting for a slot listens to this signal; hundreds of listeners are expected, not a leak.
    setMaxListeners(0, this.#stopWaiting.signal);
    // Keep-alive connections: consecutive deliveries to a receiver reuse them.
    this.#agent = createDeliveryAgent({
      connectionsPerTarget: perTarget,
      allowPrivateTargets: this.#options.allowPrivateTargets,
    });
  }

  start(): void {
    if (this.#started || this.#closing) return;
    this.#started = true;
    this.#pollTimer = setInterval(() => this.wake(), this.#options.pollIntervalMs);
    this.#pollTimer.unref();
    this.wake();
  }

  /**
   * Claims due attempts soon (a local commit queued some, or an admin asked for a redelivery): at once
   * after a quiet spell, else with the other wakes of the current claim interval.
   */
  wake(): void {
    if (!this.#started || this.#closing) return;
    this.#claims.request();
  }

  /**
   * Leases an attempt that a local write is queueing, when there is room to hold it: its row is then
   * written already claimed (the returned token and lease), and `holdCommitted` holds it after the
   * commit without a claim statement. Undefined when it must be claimed as usual. A lease whose write
   * never commits is forgotten after its lease time; were its row committed after all, it would be
   * claimed again once the lease expired, as after a crash.
   */
  leaseQueued(attempt: Omit<QueuedAttempt, 'dueAt' | 'claim'>, targetHost: string): ClaimedAttempt | undefined {
    const now = Date.now();
    this.#forgetStaleLeases(now);
    const { maxHeld, perTargetHeld } = this.#options;
    const leasedHere = this.#leasedPerTarget.get(targetHost) ?? 0;
    if (
      !this.#started ||
      this.#closing ||
      this.#held.size + this.#leasedCount >= maxHeld ||
      (this.#heldPerTarget.get(targetHost) ?? 0) + leasedHere >= perTargetHeld
    ) {
      this.#claimNeeded = true;
      return undefined;
    }
    const leased: ClaimedAttempt = {
      id: attempt.id,
      webhookId: attempt.webhookId,
      eventId: attempt.eventId,
      eventType: attempt.eventType,
      attemptNumber: attempt.attemptNumber,
      requestPayload: attempt.requestPayload,
      targetUrl: attempt.targetUrl,
      targetHost,
      claimToken: uuidv7(),
      claimedUntil: now + this.#leaseMs,
    };
    const entry = this.#leased.get(attempt.eventId);
    if (entry) entry.attempts.push(leased);
    else this.#leased.set(attempt.eventId, { at: now, attempts: [leased] });
    this.#leasedPerTarget.set(targetHost, leasedHere + 1);
    this.#leasedCount++;
    return leased;
  }

  /** The events' writes committed: their leased attempts are held (sent); unleased ones are claimed. */
  holdCommitted(eventIds: readonly string[]): void {
    for (const eventId of eventIds) {
      const entry = this.#leased.get(eventId);
      if (!entry) continue;
      this.#forget(eventId, entry.attempts);
      for (const attempt of entry.attempts) this.#hold(attempt);
    }
    if (this.#claimNeeded) {
      this.#claimNeeded = false;
      this.wake();
    }
  }

  /** The events' writes were rolled back: their leased attempts were never stored, so they hold no room. */
  dropLeases(eventIds: readonly string[]): void {
    for (const eventId of eventIds) {
      const entry = this.#leased.get(eventId);
      if (entry) this.#forget(eventId, entry.attempts);
    }
  }

  #forgetStaleLeases(now: number): void {
    for (const [eventId, entry] of this.#leased) {
      if (now - entry.at < this.#leaseMs) return;
      this.#forget(eventId, entry.attempts);
    }
  }

  #forget(eventId: string, attempts: readonly ClaimedAttempt[]): void {
    this.#leased.delete(eventId);
    this.#leasedCount -= attempts.length;
    for (const { targetHost } of attempts) decrementCount(this.#leasedPerTarget, targetHost);
  }

  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    clearInterval(this.#pollTimer);
    clearTimeout(this.#wakeTimer);
    this.#stopWaiting.abort();
    await this.#claims.stop();
    const finished = Promise.allSettled([...this.#tasks]).then(() => true);
    let graceTimer: NodeJS.Timeout | undefined;
    const grace = new Promise<boolean>((resolve) => {
      graceTimer = setTimeout(() => resolve(false), this.#options.closeGraceMs);
    });
    if (!(await Promise.race([finished, grace]))) {
      this.#sends.abortAll();
      await finished;
    }
    clearTimeout(graceTimer);
    await this.#agent.destroy();
  }

  async #pump(): Promise<void> {
    const { maxHeld, batchSize, perTargetHeld } = this.#options;
    let full: boolean;
    do {
      const room = maxHeld - this.#held.size;
      this.#capped = room <= 0;
      if (this.#capped) return;
      const limit = Math.min(room, batchSize);
      this.#skipped = new Set(
        [...this.#heldPerTarget].filter(([, held]) => held >= perTargetHeld).map(([target]) => target),
      );
      const claimed = await this.#deps.deliveries.claim({
        limit,
        leaseMs: this.#leaseMs,
        excludeTargets: [...this.#skipped],
      });
      for (const attempt of claimed) this.#hold(attempt);
      // A full batch means more may be due right now: a backlog is drained without waiting.
      full = claimed.length === limit;
    } while (full && !this.#closing);
  }

  #hold(attempt: ClaimedAttempt): void {
    const already = this.#held.get(attempt.id);
    if (already) {
      // Claimed again after its lease lapsed while waiting here: keep one copy, with the new claim.
      already.claimToken = attempt.claimToken;
      already.claimedUntil = attempt.claimedUntil;
      return;
    }
    if (this.#closing) {
      void this.#deps.deliveries.release([attempt]).catch(() => {});
      return;
    }
    this.#held.set(attempt.id, attempt);
    this.#heldPerTarget.set(attempt.targetHost, (this.#heldPerTarget.get(attempt.targetHost) ?? 0) + 1);
    let leftTarget = false;
    // An attempt counts against its target while it waits for a slot or is being sent, not while its
    // outcome waits for its batched write: counting that wait too refused leases to a target that kept
    // up, and its attempts were then written unleased and claimed (a row rewrite and a payload read back each).
    const leaveTarget = () => {
      if (leftTarget) return;
      leftTarget = true;
      const left = decrementCount(this.#heldPerTarget, attempt.targetHost);
      // Claims were held back by this target: room again, claim more (with hysteresis, so a busy
      // target is not re-claimed for on every single completion).
      if (this.#skipped.has(attempt.targetHost) && left < this.#options.perTargetHeld / 2) this.wake();
    };
    const done = () => {
      this.#tasks.delete(task);
      this.#held.delete(attempt.id);
      leaveTarget();
      // Claims were held back by the global cap: room again.
      if (this.#capped) this.wake();
    };
    // One reaction for both outcomes rather than catch() then finally(): two promises fewer per delivery.
    const task: Promise<void> = this.#deliver(attempt, leaveTarget).then(done, (error: unknown) => {
      this.#deps.log.error({ err: error, deliveryId: attempt.id }, 'webhook delivery could not be recorded');
      done();
    });
    this.#tasks.add(task);
  }

  /** `sent` is called once the attempt no longer needs its target: its request is over. */
  async #deliver(attempt: ClaimedAttempt, sent: () => void): Promise<void> {
    const { deliveries } = this.#deps;
    const subscription =
      this.#deps.subscriptions.get(attempt.webhookId) ?? (await this.#reloadedSubscription(attempt.webhookId));
    if (!subscription) return deliveries.discard(attempt);
    if (!subscription.enabled) {
      await deliveries.settle(attempt, {
        status: 'failed',
        error: 'The subscription was disabled before this attempt was sent',
        httpStatus: null,
        responseHeaders: null,
        responseBody: null,
      });
      return;
    }
    // A free slot is taken at once; only a busy target's attempts wait (and give their claim back on close).
    let release = this.#limiter.tryAcquire(attempt.targetHost);
    if (!release) {
      try {
        release = await this.#limiter.acquire(attempt.targetHost, this.#stopWaiting.signal);
      } catch {
        return deliveries.release([attempt]);
      }
    }
    let result: SendResult;
    try {
      if (
        attempt.claimedUntil - Date.now() < this.#renewBelowMs &&
        !(await deliveries.renewLease(attempt, this.#leaseMs))
      )
        return;
      result = await sendWebhook(buildDeliveryRequest(attempt, subscription, Date.now()), {
        clock: this.#sends,
        allowPrivateTargets: this.#options.allowPrivateTargets,
        agent: this.#agent,
      });
    } finally {
      // The slot limits requests to the target; recording the outcome must not hold it (a batched
      // success write waits a little), or the target's throughput would pay for our database.
      release();
      sent();
    }
    // Shutting down mid-send: the attempt is given back and sent again, as after a crash.
    if (result.kind === 'aborted') return deliveries.release([attempt]);
    const outcome = decideOutcome(
      result,
      attempt.attemptNumber,
      effectiveRetryConfig(subscription.retryConfig),
      Date.now(),
    );
    // Successes, the bulk of the work, are written in batches; failures one by one (a retry adds a row).
    if (outcome.status === 'success') await this.#successes.record(attempt, outcome);
    else if ((await deliveries.settle(attempt, outcome)) && outcome.status === 'retry')
      this.#wakeAtTime(Date.parse(outcome.nextRetryAt));
  }

  /** A subscription the cache does not have: one created by another process may be newer than the cache. */
  async #reloadedSubscription(id: string): Promise<StoredSubscription | undefined> {
    const { subscriptions } = this.#deps;
    await subscriptions.reload();
    return subscriptions.get(id);
  }

  /** Wakes the pump when a retry falls due, rather than up to a poll interval later. */
  #wakeAtTime(time: number): void {
    if (this.#closing || time >= this.#wakeAt) return;
    clearTimeout(this.#wakeTimer);
    this.#wakeAt = time;
    this.#wakeTimer = setTimeout(
      () => {
        this.#wakeAt = Infinity;
        this.wake();
      },
      Math.max(time - Date.now(), 0),
    );
    this.#wakeTimer.unref();
  }
}

/** Takes one from `key`'s count, dropping the key at zero; returns what is left. */
function decrementCount(counts: Map<string, number>, key: string): number {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
  return left;
}
