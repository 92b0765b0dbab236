// The identity component and API keys as the rest of the service sees them.
import type { Principal } from './principal.ts';

export interface AuthenticateInput {
  /** The raw Authorization header. */
  authorization?: string;
  /** `X-Service-Role` header: act as another of the user's allowedRoles. */
  role?: string;
  /** `?token=` on the stream endpoint, when the deployment allows it. */
  queryToken?: string;
}

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export interface AuthenticatedRequest {
  principal: Principal;
  /** Present for key requests under a rate limit: sent as RateLimit-* headers. */
  rateLimit?: RateLimitState;
}

export interface AuthComponent {
  /** Creates the identity, key and admin-token tables. Idempotent. */
  migrate(): Promise<void>;
  /** Resolves the caller; throws ApiError (401/403/429) when it may not proceed. */
  authenticate(input: AuthenticateInput): Promise<AuthenticatedRequest>;
  close(): Promise<void>;
}
