// The `remaining` quota of a key (spec 2.1): each request takes one; at zero the key gets 429
// USAGE_EXCEEDED until a refill. Every refillInterval ms since the last refill adds refillAmount,
// but only up to refillAmount: a quota below it is topped up, one above it is never cut, and an idle
// key does not pile up an unbounded balance. Quota lives in the database so every process shares it.
import type { ApiKeyRepository, QuotaRow } from './api-key-repository.ts';

export type QuotaDecision = { allowed: true; remaining: number } | { allowed: false; retryAfterMs: number | null };

export interface Refill {
  remaining: number;
  lastRefillAt: string;
}

export function computeRefill(row: QuotaRow, now: number): Refill | null {
  const { remaining, refillInterval: interval, refillAmount: amount } = row;
  if (remaining === null || interval === null || amount === null || interval <= 0) return null;
  if (row.lastRefillAt === null) return { remaining, lastRefillAt: new Date(now).toISOString() };
  const last = Date.parse(row.lastRefillAt);
  const periods = Math.floor((now - last) / interval);
  if (periods < 1) return null;
  const refilled = remaining >= amount ? remaining : Math.min(amount, remaining + periods * amount);
  // Advance by whole intervals so the schedule does not drift with request timing.
  return { remaining: refilled, lastRefillAt: new Date(last + periods * interval).toISOString() };
}

export class UsageQuota {
  readonly #keys: ApiKeyRepository;
  /**
   * When each key's next refill is due, as last seen here; until then no refill check is needed.
   * Re-read after `recheckMs` anyway, so a schedule changed by another process is picked up.
   */
  readonly #schedule = new Map<string, { next: number | null; checkedAt: number }>();
  readonly #recheckMs: number;

  constructor(keys: ApiKeyRepository, recheckMs: number) {
    this.#keys = keys;
    this.#recheckMs = recheckMs;
  }

  async consume(keyId: string, now = Date.now()): Promise<QuotaDecision> {
    const known = this.#schedule.get(keyId);
    if (!known || (known.next !== null && known.next <= now) || now - known.checkedAt > this.#recheckMs) {
      await this.#refillIfDue(keyId, now);
    }
    const left = await this.#keys.takeQuota(keyId);
    if (left !== undefined) return { allowed: true, remaining: left };
    const next = this.#schedule.get(keyId)?.next ?? null;
    return { allowed: false, retryAfterMs: next === null ? null : Math.max(0, next - now) };
  }

  /** Forget what is known about a key's schedule (its quota settings changed). */
  forget(keyId: string): void {
    this.#schedule.delete(keyId);
  }

  async #refillIfDue(keyId: string, now: number): Promise<void> {
    // Two attempts: losing the compare-and-set means another process refilled; re-read its result.
    for (let attempt = 0; attempt < 2; attempt++) {
      const row = await this.#keys.readQuota(keyId);
      if (!row) return;
      const refill = computeRefill(row, now);
      if (refill === null) {
        this.#remember(keyId, row, now);
        return;
      }
      if (await this.#keys.applyRefill(keyId, row, refill.remaining, refill.lastRefillAt)) {
        this.#remember(keyId, { ...row, ...refill }, now);
        return;
      }
    }
  }

  #remember(keyId: string, row: QuotaRow, now: number): void {
    const next =
      row.refillInterval === null || row.refillAmount === null || row.lastRefillAt === null
        ? null
        : Date.parse(row.lastRefillAt) + row.refillInterval;
    if (this.#schedule.size > 100_000) this.#schedule.clear();
    this.#schedule.set(keyId, { next, checkedAt: now });
  }
}
