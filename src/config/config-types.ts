// The shape of a validated svc configuration (docs/configuration.md). Frozen after load.

import type { FieldTypeName } from './field-type-names.ts';
import type { SearchLanguage } from './search-languages.ts';
import type { SocialProviderName } from './social-provider-names.ts';

/** The name of a field type; the types themselves are in src/resources/field-types/. */
export type { FieldTypeName };

/** Columns every record has besides its declared fields; no field may take their names. */
export const SYSTEM_FIELDS: readonly string[] = ['id', 'created_at', 'updated_at'];

export type OnDeleteAction = 'restrict' | 'cascade' | 'set_null';

export interface FieldDefinition {
  type: FieldTypeName;
  required?: boolean;
  nullable?: boolean;
  unique?: boolean;
  default?: unknown;
  sortable?: boolean;
  /** string and text only: words in it are found by `_search` (docs/search.md). */
  searchable?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  description?: string;
  /** Stable field id, default `<resource>.<field>`; used by webhook `fieldIds`. */
  id?: string;
  /** enum only */
  values?: string[];
  /** relation only: target resource name */
  resource?: string;
  /** relation only */
  onDelete?: OnDeleteAction;
  /** file and files: the largest upload in bytes (FILE_DEFAULTS.maxSize unless set). */
  maxSize?: number;
  /** file and files: the media types an upload may have, as sniffed from its bytes (`image/*` allowed). */
  accept?: string[];
  /** file and files: the image sizes thumbnails may be asked for, `WIDTHxHEIGHT` (0 keeps the ratio). */
  thumbs?: string[];
  /** file and files: downloads need the caller's read permission (default true). */
  protected?: boolean;
  /** files only: the most files the list holds (FILE_DEFAULTS.maxCount unless set). */
  maxCount?: number;
}

/** Filter grammar: `{ field: { op: value } }`, `_and`, `_or`, `_not`. */
export type { FilterOperator } from './filter-operators.ts';

export type FilterDefinition = {
  _and?: FilterDefinition[];
  _or?: FilterDefinition[];
  _not?: FilterDefinition;
} & { [field: string]: unknown };

export type FieldList = '*' | string[];

export interface ActionRule {
  fields?: FieldList;
  filter?: FilterDefinition;
  check?: FilterDefinition;
  preset?: Record<string, unknown>;
}

export type Action = 'read' | 'create' | 'update' | 'delete';
export const ACTIONS: readonly Action[] = ['read', 'create', 'update', 'delete'];

/** `true` = every field, no filter; absent = forbidden. */
export type RolePermissions = Partial<Record<Action, true | ActionRule>>;

export interface ResourceDefinition {
  enabled?: boolean;
  enableSoftDelete?: boolean;
  /** A JSON:API create document may carry its own `data.id` (a UUID). */
  clientIds?: boolean;
  /** How `_search` splits and stems the searchable fields' words; default simple. */
  searchLanguage?: SearchLanguage;
  description?: string;
  fields: Record<string, FieldDefinition>;
  permissions?: Record<string, RolePermissions>;
}

export interface SocialProviderConfig {
  clientId?: string;
  clientSecret?: string;
  /** TikTok's name for its client id. */
  clientKey?: string;
  scopes?: string[];
  tenantId?: string;
  domain?: string;
  region?: string;
  userPoolId?: string;
  appBundleIdentifier?: string;
}

/** How much of a table retention keeps: rows older than `maxAgeMs`, and the oldest beyond `maxCount`, go. */
export interface RetentionLimits {
  maxAgeMs: number;
  maxCount: number;
}

/** Pruning of svc_events and svc_webhook_deliveries, run on an interval by every node. */
export interface RetentionConfig {
  intervalMs: number;
  /** Rows per DELETE statement. */
  batchSize: number;
  events: RetentionLimits;
  deliveries: RetentionLimits;
}

/** Idempotency-Key answers (docs/records.md): kept `ttlMs`; a running POST /token holds its key `leaseMs`. */
export interface IdempotencyConfig {
  ttlMs: number;
  leaseMs: number;
}

/** Limits on failed credential checks (POST /token, sign-in): per account (email) and per client address. */
export interface LoginThrottleConfig {
  enabled: boolean;
  maxFailuresPerAccount: number;
  maxFailuresPerAddress: number;
  windowMs: number;
}

/** Limit on sign-up attempts per client address. */
export interface SignUpThrottleConfig {
  enabled: boolean;
  maxPerAddress: number;
  windowMs: number;
}

export interface PasswordResetConfig {
  /** Seconds a reset link stays valid. */
  expiresIn: number;
  /** A reset also deletes the user's API keys (a leaked password may have minted some). */
  revokeKeys: boolean;
}

/** auth.oidc[]: an OpenID Connect provider found through its discovery document. */
export interface OidcProviderConfig {
  id: string;
  name?: string;
  issuer: string;
  clientId: string;
  clientSecret?: string;
  /** Present once validated. */
  scopes?: string[];
}

/** auth.magicLink, auth.emailOtp. */
export interface EmailSignInConfig {
  enabled: boolean;
  /** Seconds. */
  expiresIn: number;
}

/** auth.jwt: which tokens are accepted and which claims say who the caller is. */
export interface JwtConfig {
  issuer: string;
  audience: string | string[];
  jwksUrl: string;
  /** Default `sub`. */
  userIdClaim: string;
  /** Default `role`. */
  roleClaim: string;
  /** A claim listing the roles X-Service-Role may switch to. */
  allowedRolesClaim?: string;
}

export interface SvcConfig {
  database: { url: string };
  server: {
    port: number;
    host: string;
    cors: { origins: string[] };
    bodyLimitBytes: number;
    publicMetrics?: boolean;
    // Optional so that a config written out by hand, as tests do, may leave them out; validation fills
    // them in, and SERVER_LIMIT_DEFAULTS says what they are otherwise.
    requestTimeoutMs?: number;
    maxConnections?: number;
    likePatternMaxLength?: number;
    likePatternMaxWildcards?: number;
    includeMaxDepth?: number;
    includeMaxRecords?: number;
    /** Most operations in one POST /v1/operations request. */
    atomicMaxOperations?: number;
    filterMaxDepth?: number;
    filterMaxConditions?: number;
    filterMaxInValues?: number;
    /** Serve the web console at /console and the API reference at /docs (default true). */
    console?: boolean;
    /** Longest a hook may run inside a write (default SERVER_LIMIT_DEFAULTS.hookTimeoutMs). */
    hookTimeoutMs?: number;
  };
  /** The hooks file, relative to the config file (docs/hooks.md). */
  hooks?: string;
  adminToken?: string;
  auth: {
    basePath: string;
    requireEmailVerification: boolean;
    defaultRole: string;
    baseUrl?: string;
    social: Partial<Record<SocialProviderName, SocialProviderConfig>>;
    /** Present once validated (default []). */
    oidc?: OidcProviderConfig[];
    magicLink?: EmailSignInConfig;
    emailOtp?: EmailSignInConfig;
    twoFactor?: { enabled: boolean; issuer?: string };
    email: { smtpUrl?: string; from: string };
    /** Present once validated (default []); optional so hand-written configs may leave it out. */
    trustedOrigins?: string[];
    /** Present once validated; absent means LOGIN_THROTTLE_DEFAULTS. */
    loginThrottle?: LoginThrottleConfig;
    /** Present once validated; absent means SIGN_UP_THROTTLE_DEFAULTS. */
    signUpThrottle?: SignUpThrottleConfig;
    /** Present once validated; absent means on. */
    emailAndPassword?: { enabled: boolean };
    /** Present once validated; absent means PASSWORD_RESET_DEFAULTS. */
    passwordReset?: PasswordResetConfig;
    /** Accept an external identity provider's JWTs as bearer tokens. */
    jwt?: JwtConfig;
  };
  apiKeys: {
    rateLimit: { enabled: boolean; max: number; timeWindow: number };
  };
  stream: {
    heartbeatMs: number;
    retryMs: number;
    allowQueryToken: boolean;
    replayWindow: number;
    /** Open streams per API key on a node (default 10). */
    maxPerKey?: number;
    /** Open streams per node, admin token included (default 10,000). */
    maxPerNode?: number;
  };
  webhooks: { timeoutMs: number; allowPrivateTargets: boolean; pollIntervalMs: number };
  redis?: { url?: string };
  /**
   * Always present once validated (the schema fills the defaults); optional so that a config written
   * out by hand, as tests do, may leave it out and get RETENTION_DEFAULTS.
   */
  retention?: RetentionConfig;
  /** Present once validated; absent means IDEMPOTENCY_DEFAULTS. */
  idempotency?: IdempotencyConfig;
  /** Folder for generated secrets and the default SQLite file. */
  dataDir: string;
  /** Where uploaded files are kept; absent means a local folder under dataDir. */
  storage?: StorageConfig;
  /** Present once validated; absent means FILES_DEFAULTS. */
  files?: FilesConfig;
  /**
   * The roles users may have. When declared, every role under a resource's `permissions` and
   * `auth.defaultRole` must be one of them; when absent, those roles are the defined ones.
   */
  roles?: string[];
  resources: Record<string, ResourceDefinition>;
}

/** `storage`: a local folder (`dir`, default `<dataDir>/files`) or an S3-compatible bucket. */
export interface StorageConfig {
  driver: 'local' | 's3';
  /** local: the folder. */
  dir?: string;
  /** local: every node mounts the same folder. */
  shared?: boolean;
  /** s3 (required there). */
  bucket?: string;
  endpoint?: string;
  region?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle?: boolean;
}

export interface FilesConfig {
  /** How long a signed download URL works, in seconds. */
  urlTtlSeconds: number;
}
