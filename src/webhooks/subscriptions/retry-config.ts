// Retry settings of a subscription (docs/admin-api.md, Webhooks): bounds, defaults, and the effective settings of a delivery.

export interface RetryConfig {
  maxAttempts: number;
  backoffMultiplier: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

export interface RetryBound {
  min: number;
  max: number;
  /** Counts of attempts and milliseconds are whole numbers; the multiplier need not be. */
  integer: boolean;
}

export const RETRY_BOUNDS: Readonly<Record<keyof RetryConfig, RetryBound>> = {
  maxAttempts: { min: 1, max: 100, integer: true },
  backoffMultiplier: { min: 1, max: 10, integer: false },
  initialDelayMs: { min: 100, max: 60000, integer: true },
  maxDelayMs: { min: 1000, max: 3600000, integer: true },
};

export const DEFAULT_RETRY_CONFIG: Readonly<RetryConfig> = Object.freeze({
  maxAttempts: 5,
  backoffMultiplier: 2,
  initialDelayMs: 1000,
  maxDelayMs: 300000,
});

/** The settings in force for a subscription whose retryConfig may be null. */
export function effectiveRetryConfig(config: RetryConfig | null): RetryConfig {
  return config ?? DEFAULT_RETRY_CONFIG;
}
