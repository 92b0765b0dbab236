// Recognises the admin token by its hash in constant time: the configured one (adminToken /
// SVC_ADMIN_TOKEN) when set, else the stored generated one, re-read every few seconds so a rotation
// by the CLI takes effect on running servers without a restart.
import type { SvcConfig } from '../../config/config-types.ts';
import type { Store } from '../../store/create-store.ts';
import { digestsEqual, hashToken } from '../token-hash.ts';
import { readStoredAdminTokenHash } from './stored-admin-token.ts';
import { looksLikeApiKey } from '../keys/api-key-format.ts';

export type AdminTokenSource = 'configured' | 'stored';

export class AdminTokenVerifier {
  readonly source: AdminTokenSource;
  readonly #configuredHash: string | undefined;
  readonly #configuredLooksLikeKey: boolean;
  readonly #store: Store;
  readonly #refreshMs: number;
  #storedHash: string | undefined;
  #loadedAt = Number.NEGATIVE_INFINITY;
  #loading: Promise<void> | undefined;

  constructor(config: SvcConfig, store: Store, refreshMs: number) {
    const configured = config.adminToken?.trim();
    this.source = configured ? 'configured' : 'stored';
    this.#configuredHash = configured ? hashToken(configured) : undefined;
    this.#configuredLooksLikeKey = configured !== undefined && looksLikeApiKey(configured);
    this.#store = store;
    this.#refreshMs = refreshMs;
  }

  /**
   * Whether a token could be the admin token at all: generated ones start with `svcadm_`, so an API key
   * (`svc_…`) needs no comparison unless an operator configured an admin token that looks like one.
   */
  couldMatch(token: string): boolean {
    return this.#configuredLooksLikeKey || !looksLikeApiKey(token);
  }

  /** Whether `tokenHash` (SHA-256 hex of the presented token) is the admin token's. */
  async matches(tokenHash: string): Promise<boolean> {
    if (this.#configuredHash !== undefined) return digestsEqual(tokenHash, this.#configuredHash);
    if (Date.now() - this.#loadedAt > this.#refreshMs) await this.#reload();
    return this.#storedHash !== undefined && digestsEqual(tokenHash, this.#storedHash);
  }

  /** The stored token was rotated (by the CLI): read it again on the next check. */
  forget(): void {
    this.#loadedAt = Number.NEGATIVE_INFINITY;
  }

  #reload(): Promise<void> {
    this.#loading ??= readStoredAdminTokenHash(this.#store)
      .then((hash) => {
        this.#storedHash = hash;
        this.#loadedAt = Date.now();
      })
      .finally(() => {
        this.#loading = undefined;
      });
    return this.#loading;
  }
}
