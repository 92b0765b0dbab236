// The JSON Schema (draft 2020-12) of an svc config file: its structure and its defaults (docs/configuration.md).
// Rules that relate several values (names, relations, permission field lists) are in src/resources/checks/.
// schema/svc.config.schema.json is this object written out; a test keeps the two equal.
import { FIELD_TYPE_NAMES } from './field-type-names.ts';
import { DEFAULT_SEARCH_LANGUAGE, SEARCH_LANGUAGES } from './search-languages.ts';
import { FILTER_OPERATORS } from './filter-operators.ts';
import type {
  FilterOperator,
  LoginThrottleConfig,
  OnDeleteAction,
  PasswordResetConfig,
  RetentionConfig,
  SignUpThrottleConfig,
} from './config-types.ts';
import { SOCIAL_PROVIDER_NAMES } from './social-provider-names.ts';
import { deepFreeze } from '../tools/deep-freeze.ts';
import { IDEMPOTENCY_SCHEMA } from './idempotency-settings.ts';
import { FILES_SCHEMA, STORAGE_SCHEMA } from './files-settings.ts';

/** The lists the schema's enums and operator keys are made of, for whoever reads the schema. */
export { FIELD_TYPE_NAMES, FILTER_OPERATORS };

export const ON_DELETE_ACTIONS = ['restrict', 'cascade', 'set_null'] as const satisfies readonly OnDeleteAction[];

/** Resource and field names. */
export const NAME_PATTERN = '^[a-z][a-z0-9_]{0,62}$';

/** What `retention` is when the config leaves it (or any of its keys) out. */
export const RETENTION_DEFAULTS: Readonly<RetentionConfig> = deepFreeze({
  intervalMs: 60_000,
  batchSize: 1000,
  events: { maxAgeMs: 24 * 60 * 60 * 1000, maxCount: 1_000_000 },
  deliveries: { maxAgeMs: 7 * 24 * 60 * 60 * 1000, maxCount: 1_000_000 },
});

/**
 * What `auth.loginThrottle` is when the config leaves it out: 10 wrong passwords per account and 50 per
 * client address (many users behind one NAT) in 15 minutes.
 */
export const LOGIN_THROTTLE_DEFAULTS: Readonly<LoginThrottleConfig> = deepFreeze({
  enabled: true,
  maxFailuresPerAccount: 10,
  maxFailuresPerAddress: 50,
  windowMs: 15 * 60 * 1000,
});

/** What `auth.passwordReset` is when the config leaves it out: links valid for an hour, keys revoked. */
export const PASSWORD_RESET_DEFAULTS: Readonly<PasswordResetConfig> = deepFreeze({
  expiresIn: 3600,
  revokeKeys: true,
});

/**
 * What `auth.signUpThrottle` is when the config leaves it out: 30 sign-up attempts per client address an
 * hour, enough for an office behind one NAT, too few to mass-create accounts or probe many addresses.
 */
export const SIGN_UP_THROTTLE_DEFAULTS: Readonly<SignUpThrottleConfig> = deepFreeze({
  enabled: true,
  maxPerAddress: 30,
  windowMs: 60 * 60 * 1000,
});

/**
 * Events younger than this are never pruned, whatever the count: every node's outbox tail reads an event
 * within a second, and waits at most 30 s for one that committed late (OUTBOX_GAP_GRACE_MS).
 */
export const MIN_EVENT_AGE_MS = 60_000;

/** What the server's limits are when the config leaves them out (docs/limits.md). */
export const SERVER_LIMIT_DEFAULTS = deepFreeze({
  requestTimeoutMs: 30_000,
  maxConnections: 10_000,
  likePatternMaxLength: 100,
  likePatternMaxWildcards: 16,
  includeMaxDepth: 3,
  includeMaxRecords: 1000,
  hookTimeoutMs: 5000,
  atomicMaxOperations: 100,
  filterMaxDepth: 8,
  filterMaxConditions: 100,
  filterMaxInValues: 1000,
});

/** setInterval runs a longer delay at once (it overflows to 1 ms). */
const MAX_TIMER_MS = 2_147_483_647;

const FILTER_REF = { $ref: '#/$defs/filter' };
const FIELD_LIST_REF = { $ref: '#/$defs/fieldList' };
const PRESET_REF = { $ref: '#/$defs/preset' };

/** `true`, or an object with the keys an action understands. `false` is refused: omit the action instead. */
function actionRule(description: string, properties: Record<string, unknown>): Record<string, unknown> {
  return {
    description,
    type: ['boolean', 'object'],
    if: { type: 'boolean' },
    then: { const: true },
    else: { type: 'object', properties, additionalProperties: false },
  };
}

/** Schema of one filter operator's value. */
function operatorValue(op: FilterOperator): Record<string, unknown> {
  switch (op) {
    case 'in':
    case 'nin':
      return { type: 'array' };
    case 'is_null':
    case 'is_not_null':
      return { type: 'boolean' };
    case 'like':
    case 'ilike':
    case 'regex':
      return { type: 'string' };
    default:
      return {};
  }
}

function retentionLimits(
  what: string,
  defaults: RetentionConfig['events'],
  minAgeMs: number,
  except: string,
): Record<string, unknown> {
  return {
    type: 'object',
    default: {},
    additionalProperties: false,
    properties: {
      maxAgeMs: {
        description: `${what} older than this (milliseconds) are deleted${except}.`,
        type: 'integer',
        minimum: minAgeMs,
        default: defaults.maxAgeMs,
      },
      maxCount: {
        description: `When the table holds more rows than this, the oldest ${what.toLowerCase()} beyond it are deleted${except}.`,
        type: 'integer',
        minimum: 0,
        default: defaults.maxCount,
      },
    },
  };
}

const socialProvider = {
  description: 'A provider is on only when both credentials are non-empty (TikTok: clientKey and clientSecret).',
  type: 'object',
  additionalProperties: false,
  properties: {
    clientId: { type: 'string' },
    clientSecret: { type: 'string' },
    clientKey: { description: 'TikTok names its client id so.', type: 'string' },
    scopes: {
      description: "Scopes asked for besides the provider's defaults.",
      type: 'array',
      items: { type: 'string', minLength: 1 },
      maxItems: 50,
    },
    tenantId: { description: 'Microsoft Entra ID: the tenant (default `common`).', type: 'string' },
    domain: { description: 'Cognito: the user pool domain.', type: 'string' },
    region: { description: 'Cognito: the AWS region.', type: 'string' },
    userPoolId: { description: 'Cognito: the user pool id.', type: 'string' },
    appBundleIdentifier: {
      description: 'Apple: the app bundle identifier, for ID tokens from Apple platforms.',
      type: 'string',
    },
  },
};

/** auth.oidc: one OpenID Connect provider, found through its discovery document. */
const oidcProvider = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'issuer', 'clientId'],
  properties: {
    id: {
      description: 'Names the provider in URLs (`/auth/callback/<id>`) and in `/auth/methods`.',
      type: 'string',
      pattern: '^[a-z0-9][a-z0-9_-]{0,62}$',
    },
    name: {
      description: 'Shown on the sign-in button (default: the id).',
      type: 'string',
      minLength: 1,
      maxLength: 100,
    },
    issuer: {
      description: 'The issuer URL; its `/.well-known/openid-configuration` is read.',
      type: 'string',
      pattern: '^https?://',
    },
    clientId: { type: 'string', minLength: 1 },
    clientSecret: { type: 'string' },
    scopes: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      maxItems: 50,
      default: ['openid', 'email', 'profile'],
    },
  },
};

/** auth.magicLink and auth.emailOtp: an emailed sign-in, off unless enabled. */
function emailSignIn(what: string, defaultExpiresIn: number) {
  return {
    type: 'object',
    default: {},
    additionalProperties: false,
    properties: {
      enabled: { description: `Sign in with ${what} sent through auth.email.`, type: 'boolean', default: false },
      expiresIn: {
        description: `Seconds ${what} stays valid.`,
        type: 'integer',
        minimum: 30,
        maximum: 86_400,
        default: defaultExpiresIn,
      },
    },
  };
}

export const CONFIG_SCHEMA: Readonly<Record<string, unknown>> = deepFreeze({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'svc configuration',
  description:
    'Configuration of an svc service: database, server, identity, keys, stream, webhooks, retention and resources.',
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { description: 'Lets editors find this schema.', type: 'string' },
    database: {
      type: 'object',
      default: {},
      additionalProperties: false,
      properties: {
        url: {
          description: '`sqlite:PATH` (relative to the working directory) or `postgres://…`. DATABASE_URL overrides.',
          type: 'string',
          minLength: 1,
          default: 'sqlite:./.svc/data.db',
        },
      },
    },
    server: {
      type: 'object',
      default: {},
      additionalProperties: false,
      properties: {
        port: { description: 'PORT overrides.', type: 'integer', minimum: 0, maximum: 65535, default: 3000 },
        host: {
          description:
            'Address to listen on; HOST overrides. 127.0.0.1 (the default) serves this machine only; 0.0.0.0 every interface (containers, servers).',
          type: 'string',
          minLength: 1,
          default: '127.0.0.1',
        },
        cors: {
          type: 'object',
          default: {},
          additionalProperties: false,
          properties: {
            origins: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true, default: [] },
          },
        },
        bodyLimitBytes: { type: 'integer', minimum: 1, default: 1048576 },
        publicMetrics: { description: 'Serve /metrics without the admin token.', type: 'boolean', default: false },
        requestTimeoutMs: {
          description:
            'Time a client has to send a whole request, headers and body (milliseconds; 0: no limit). Responses, such as event streams, are not limited.',
          type: 'integer',
          minimum: 0,
          maximum: MAX_TIMER_MS,
          default: SERVER_LIMIT_DEFAULTS.requestTimeoutMs,
        },
        maxConnections: {
          description: 'Open connections the server accepts at once; further ones are closed as they arrive.',
          type: 'integer',
          minimum: 1,
          default: SERVER_LIMIT_DEFAULTS.maxConnections,
        },
        likePatternMaxLength: {
          description: 'Longest `like`/`ilike` list filter value, in characters.',
          type: 'integer',
          minimum: 1,
          maximum: 10_000,
          default: SERVER_LIMIT_DEFAULTS.likePatternMaxLength,
        },
        likePatternMaxWildcards: {
          description: 'Most `%` and `_` wildcards in one `like`/`ilike` list filter value.',
          type: 'integer',
          minimum: 0,
          maximum: 10_000,
          default: SERVER_LIMIT_DEFAULTS.likePatternMaxWildcards,
        },
        includeMaxDepth: {
          description: 'Most relationships in one `include` path (`author.company` is 2).',
          type: 'integer',
          minimum: 1,
          maximum: 10,
          default: SERVER_LIMIT_DEFAULTS.includeMaxDepth,
        },
        includeMaxRecords: {
          description: 'Most related records one request may include.',
          type: 'integer',
          minimum: 1,
          maximum: 10_000,
          default: SERVER_LIMIT_DEFAULTS.includeMaxRecords,
        },
        filterMaxDepth: {
          description: 'Deepest nesting of `_and`, `_or` and `_not` in a `_filter` parameter (the top level is 1).',
          type: 'integer',
          minimum: 1,
          maximum: 64,
          default: SERVER_LIMIT_DEFAULTS.filterMaxDepth,
        },
        filterMaxConditions: {
          description: 'Most conditions (`{ field: { op: value } }`) in one `_filter` parameter.',
          type: 'integer',
          minimum: 1,
          maximum: 10_000,
          default: SERVER_LIMIT_DEFAULTS.filterMaxConditions,
        },
        filterMaxInValues: {
          description: 'Most values of all `in`/`nin` lists of one `_filter` parameter together.',
          type: 'integer',
          minimum: 1,
          maximum: 10_000,
          default: SERVER_LIMIT_DEFAULTS.filterMaxInValues,
        },
        atomicMaxOperations: {
          description: 'Most operations one POST /v1/operations request (JSON:API Atomic Operations) may hold.',
          type: 'integer',
          minimum: 1,
          maximum: 10_000,
          default: SERVER_LIMIT_DEFAULTS.atomicMaxOperations,
        },
        console: {
          description: 'Serve the web console at /console and the API reference at /docs.',
          type: 'boolean',
          default: true,
        },
        hookTimeoutMs: {
          description:
            'Longest a hook may run inside a write (milliseconds); a slower one is refused with 503 HOOK_TIMEOUT and the write rolls back.',
          type: 'integer',
          minimum: 1,
          maximum: 600_000,
          default: SERVER_LIMIT_DEFAULTS.hookTimeoutMs,
        },
      },
    },
    hooks: {
      description:
        'A JavaScript module (.mjs or .js) whose default export is the hooks and custom routes, relative to the config file. Empty: none.',
      type: 'string',
      pattern: '^$|\\.(mjs|js|cjs|mts|ts)$',
    },
    adminToken: {
      description: 'SVC_ADMIN_TOKEN overrides. Empty: a stored token is generated at first start and printed once.',
      type: 'string',
    },
    auth: {
      type: 'object',
      default: {},
      additionalProperties: false,
      properties: {
        basePath: {
          description: "Where the identity component's endpoints are mounted.",
          type: 'string',
          pattern: '^/',
          default: '/auth',
        },
        requireEmailVerification: { type: 'boolean', default: false },
        defaultRole: { description: 'primaryRole of new users.', type: 'string', minLength: 1, default: 'user' },
        baseUrl: {
          description: 'Public URL of the service, used in links sent by email and OAuth callbacks.',
          type: 'string',
        },
        social: {
          type: 'object',
          default: {},
          additionalProperties: false,
          properties: Object.fromEntries(SOCIAL_PROVIDER_NAMES.map((name) => [name, socialProvider])),
        },
        oidc: {
          description: 'OpenID Connect providers (Keycloak, Auth0, Okta, Entra ID, Authentik…) users may sign in with.',
          type: 'array',
          items: oidcProvider,
          maxItems: 50,
          default: [],
        },
        magicLink: emailSignIn('a link', 300),
        emailOtp: emailSignIn('a one-time code', 300),
        twoFactor: {
          type: 'object',
          default: {},
          additionalProperties: false,
          properties: {
            enabled: {
              description:
                'Users may turn on TOTP two-factor for themselves; sign-in and POST /token then ask for the code.',
              type: 'boolean',
              default: false,
            },
            issuer: {
              description: 'The name authenticator apps show (default `svc`).',
              type: 'string',
              minLength: 1,
              maxLength: 100,
            },
          },
        },
        email: {
          type: 'object',
          default: {},
          additionalProperties: false,
          properties: {
            smtpUrl: { description: 'Empty: links are logged instead of sent.', type: 'string' },
            from: { type: 'string', minLength: 1, default: 'svc <no-reply@localhost>' },
          },
        },
        trustedOrigins: {
          description:
            "Origins (besides the service's own) from which the identity endpoints accept browser requests: any request with cookies, and sign-up and sign-in that name an Origin.",
          type: 'array',
          items: { type: 'string', minLength: 1 },
          uniqueItems: true,
          default: [],
        },
        jwt: {
          description:
            "Accept JWTs from an external identity provider as `Authorization: Bearer <JWT>` on /v1, /me and streams. Signatures are checked against the provider's JWKS (RS*, PS*, ES*, EdDSA only).",
          type: 'object',
          additionalProperties: false,
          required: ['issuer', 'audience', 'jwksUrl'],
          properties: {
            issuer: { description: 'The `iss` every token must carry.', type: 'string', minLength: 1 },
            audience: {
              description: 'The `aud` a token must carry (one of these, when a list).',
              oneOf: [
                { type: 'string', minLength: 1 },
                { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
              ],
            },
            jwksUrl: { description: "URL of the provider's JSON Web Key Set.", type: 'string', pattern: '^https?://' },
            userIdClaim: {
              description: 'The claim that holds the user id (`$userId` in row filters).',
              type: 'string',
              minLength: 1,
              default: 'sub',
            },
            roleClaim: {
              description: 'The claim that names the role; it must be a defined role.',
              type: 'string',
              minLength: 1,
              default: 'role',
            },
            allowedRolesClaim: {
              description: 'A claim listing the roles X-Service-Role may switch to.',
              type: 'string',
              minLength: 1,
            },
          },
        },
        loginThrottle: {
          description:
            'Limits on failed credential checks (POST /token and sign-in), per account (email) and per client address.',
          type: 'object',
          default: {},
          additionalProperties: false,
          properties: {
            enabled: { type: 'boolean', default: LOGIN_THROTTLE_DEFAULTS.enabled },
            maxFailuresPerAccount: {
              type: 'integer',
              minimum: 1,
              maximum: 1_000_000,
              default: LOGIN_THROTTLE_DEFAULTS.maxFailuresPerAccount,
            },
            maxFailuresPerAddress: {
              type: 'integer',
              minimum: 1,
              maximum: 1_000_000,
              default: LOGIN_THROTTLE_DEFAULTS.maxFailuresPerAddress,
            },
            windowMs: {
              description: 'Milliseconds; the window starts at the first failure.',
              type: 'integer',
              minimum: 1000,
              maximum: 86_400_000,
              default: LOGIN_THROTTLE_DEFAULTS.windowMs,
            },
          },
        },
        signUpThrottle: {
          description:
            'Limit on sign-up attempts (POST <basePath>/sign-up/email) per client address, successful or not.',
          type: 'object',
          default: {},
          additionalProperties: false,
          properties: {
            enabled: { type: 'boolean', default: SIGN_UP_THROTTLE_DEFAULTS.enabled },
            maxPerAddress: {
              type: 'integer',
              minimum: 1,
              maximum: 1_000_000,
              default: SIGN_UP_THROTTLE_DEFAULTS.maxPerAddress,
            },
            windowMs: {
              description: 'Milliseconds; the window starts at the first attempt.',
              type: 'integer',
              minimum: 1000,
              maximum: 86_400_000,
              default: SIGN_UP_THROTTLE_DEFAULTS.windowMs,
            },
          },
        },
        emailAndPassword: {
          description: 'Sign-up and sign-in with an email and a password, and POST /token with them.',
          type: 'object',
          default: {},
          additionalProperties: false,
          properties: {
            enabled: {
              description:
                'Off: those answer 403 EMAIL_PASSWORD_DISABLED; keys still come from sessions (social, OIDC).',
              type: 'boolean',
              default: true,
            },
          },
        },
        passwordReset: {
          description: 'POST {basePath}/request-password-reset and {basePath}/reset-password.',
          type: 'object',
          default: {},
          additionalProperties: false,
          properties: {
            expiresIn: {
              description: 'Seconds a reset link stays valid.',
              type: 'integer',
              minimum: 60,
              maximum: 604_800,
              default: PASSWORD_RESET_DEFAULTS.expiresIn,
            },
            revokeKeys: {
              description: "A reset also revokes the user's API keys (and ends their streams).",
              type: 'boolean',
              default: PASSWORD_RESET_DEFAULTS.revokeKeys,
            },
          },
        },
      },
    },
    apiKeys: {
      type: 'object',
      default: {},
      additionalProperties: false,
      properties: {
        rateLimit: {
          description: 'Global default per key; a key may only tighten it.',
          type: 'object',
          default: {},
          additionalProperties: false,
          properties: {
            enabled: { type: 'boolean', default: true },
            max: { type: 'integer', minimum: 1, default: 1000 },
            timeWindow: { description: 'Milliseconds.', type: 'integer', minimum: 1, default: 60000 },
          },
        },
      },
    },
    stream: {
      type: 'object',
      default: {},
      additionalProperties: false,
      properties: {
        heartbeatMs: { type: 'integer', minimum: 1, default: 30000 },
        retryMs: { type: 'integer', minimum: 0, default: 3000 },
        allowQueryToken: {
          description: 'Accept `?token=` as well as the Authorization header.',
          type: 'boolean',
          default: true,
        },
        replayWindow: {
          description: 'Events kept per resource for Last-Event-ID resumption.',
          type: 'integer',
          minimum: 0,
          default: 10000,
        },
        maxPerKey: {
          description:
            'Open streams one API key may hold on a node; more are refused with 429 RATE_LIMITED. Default 10.',
          type: 'integer',
          minimum: 1,
        },
        maxPerNode: {
          description:
            'Open streams a node serves, admin-token streams included; more are refused with 429 RATE_LIMITED. Default 10000.',
          type: 'integer',
          minimum: 1,
        },
      },
    },
    webhooks: {
      type: 'object',
      default: {},
      additionalProperties: false,
      properties: {
        timeoutMs: { type: 'integer', minimum: 1, default: 30000 },
        allowPrivateTargets: {
          description: 'Allow private, loopback and link-local delivery URLs.',
          type: 'boolean',
          default: false,
        },
        pollIntervalMs: { type: 'integer', minimum: 1, default: 500 },
      },
    },
    redis: {
      type: 'object',
      additionalProperties: false,
      properties: { url: { description: 'REDIS_URL overrides. Set it to run several nodes.', type: 'string' } },
    },
    retention: {
      description:
        'Pruning of old events and webhook delivery records, run on an interval by every node (safe side by side).',
      type: 'object',
      default: {},
      additionalProperties: false,
      properties: {
        intervalMs: {
          description: 'How often each node prunes.',
          type: 'integer',
          minimum: 1,
          maximum: MAX_TIMER_MS,
          default: RETENTION_DEFAULTS.intervalMs,
        },
        batchSize: {
          description: 'Rows deleted per statement, so a large backlog never holds a long lock.',
          type: 'integer',
          minimum: 1,
          maximum: 100_000,
          default: RETENTION_DEFAULTS.batchSize,
        },
        events: retentionLimits(
          'Events',
          RETENTION_DEFAULTS.events,
          MIN_EVENT_AGE_MS,
          ', except the last stream.replayWindow of each resource and any younger than a minute',
        ),
        deliveries: retentionLimits(
          'Delivery records',
          RETENTION_DEFAULTS.deliveries,
          0,
          ' once finished: an attempt not sent yet, being sent, or whose retry is still to come is never deleted',
        ),
      },
    },
    idempotency: IDEMPOTENCY_SCHEMA,
    storage: STORAGE_SCHEMA,
    files: FILES_SCHEMA,
    dataDir: {
      description: 'Folder for generated secrets and the default SQLite file, relative to the working directory.',
      type: 'string',
      minLength: 1,
      default: './.svc',
    },
    roles: {
      description:
        "The roles users may have. When present, every role under a resource's permissions and auth.defaultRole must be listed; " +
        'when absent, the roles are those named under permissions plus auth.defaultRole.',
      type: 'array',
      items: { type: 'string', minLength: 1, maxLength: 100 },
      uniqueItems: true,
    },
    resources: {
      type: 'object',
      default: {},
      propertyNames: { pattern: NAME_PATTERN },
      additionalProperties: { $ref: '#/$defs/resource' },
    },
  },
  $defs: {
    resource: {
      type: 'object',
      required: ['fields'],
      additionalProperties: false,
      properties: {
        enabled: {
          description: 'false: every endpoint answers 404 RESOURCE_DISABLED.',
          type: 'boolean',
          default: true,
        },
        enableSoftDelete: {
          description: 'Delete sets deleted_at instead of removing the row.',
          type: 'boolean',
          default: false,
        },
        clientIds: {
          description:
            'true: a JSON:API create document may carry data.id, a UUID the client chose; otherwise that is 403 CLIENT_GENERATED_ID_FORBIDDEN.',
          type: 'boolean',
          default: false,
        },
        searchLanguage: {
          description:
            "How `_search` splits and stems the searchable fields' words (a PostgreSQL text-search configuration).",
          enum: SEARCH_LANGUAGES,
          default: DEFAULT_SEARCH_LANGUAGE,
        },
        description: { type: 'string' },
        fields: {
          type: 'object',
          propertyNames: { pattern: NAME_PATTERN },
          additionalProperties: { $ref: '#/$defs/field' },
        },
        permissions: {
          description: 'Role name → actions it may perform. A role or action absent here is forbidden.',
          type: 'object',
          default: {},
          propertyNames: { minLength: 1 },
          additionalProperties: { $ref: '#/$defs/rolePermissions' },
        },
      },
    },
    field: {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: {
        type: { enum: FIELD_TYPE_NAMES },
        required: { type: 'boolean' },
        nullable: { description: 'Default: not required.', type: 'boolean' },
        unique: { type: 'boolean' },
        default: { description: "Value used when a create omits the field; must be valid for the field's type." },
        sortable: { type: 'boolean' },
        searchable: {
          description: 'string and text only: `_search` finds records by the words of this field.',
          type: 'boolean',
        },
        minLength: { type: 'integer', minimum: 0 },
        maxLength: { description: 'string: 255 unless set.', type: 'integer', minimum: 1 },
        pattern: { description: 'JavaScript regular expression (unicode mode).', type: 'string' },
        minimum: { type: 'number' },
        maximum: { type: 'number' },
        description: { type: 'string' },
        id: {
          description: 'Stable field id used by webhook fieldIds; default `<resource>.<field>`.',
          type: 'string',
          minLength: 1,
        },
        values: {
          description: 'enum only.',
          type: 'array',
          minItems: 1,
          uniqueItems: true,
          items: { type: 'string', minLength: 1 },
        },
        resource: { description: 'relation only: the target resource.', type: 'string' },
        onDelete: { description: 'relation only; default restrict.', enum: ON_DELETE_ACTIONS },
        maxSize: {
          description: 'file and files: the largest upload in bytes; default 10 MiB.',
          type: 'integer',
          minimum: 1,
        },
        accept: {
          description: 'file and files: media types an upload may have, sniffed from its bytes (`image/*` allowed).',
          type: 'array',
          minItems: 1,
          uniqueItems: true,
          items: { type: 'string', pattern: '^[a-z0-9.+-]+/([a-z0-9.+-]+|\\*)$' },
        },
        thumbs: {
          description: 'file and files: thumbnail sizes that may be asked for, WIDTHxHEIGHT (0 keeps the ratio).',
          type: 'array',
          uniqueItems: true,
          items: { type: 'string', pattern: '^(0|[1-9][0-9]{0,3})x(0|[1-9][0-9]{0,3})$' },
        },
        protected: {
          description: "file and files: downloads need the caller's read permission (default true).",
          type: 'boolean',
        },
        maxCount: {
          description: 'files only: the most files the list holds; default 10.',
          type: 'integer',
          minimum: 1,
        },
      },
    },
    rolePermissions: {
      type: 'object',
      additionalProperties: false,
      properties: {
        read: actionRule('Read rows: fields returned, filter on rows.', { fields: FIELD_LIST_REF, filter: FILTER_REF }),
        create: actionRule('Create rows: writable fields, check on the row written, preset fields.', {
          fields: FIELD_LIST_REF,
          check: FILTER_REF,
          preset: PRESET_REF,
        }),
        update: actionRule('Update rows: writable fields, filter on rows, check on the row written, preset fields.', {
          fields: FIELD_LIST_REF,
          filter: FILTER_REF,
          check: FILTER_REF,
          preset: PRESET_REF,
        }),
        delete: actionRule('Delete rows: filter on rows.', { filter: FILTER_REF }),
      },
    },
    fieldList: {
      description: '"*" for every field, or a list of field names.',
      type: ['string', 'array'],
      if: { type: 'string' },
      then: { const: '*' },
      else: { type: 'array', uniqueItems: true, items: { type: 'string' } },
    },
    preset: {
      description: 'Fields set server-side; values may be session variables ($userId, $role).',
      type: 'object',
    },
    filter: {
      description:
        '{ field: { op: value } } (several fields are AND-ed), _and, _or, _not. Values may be $userId or $role.',
      type: 'object',
      properties: {
        _and: { type: 'array', items: FILTER_REF },
        _or: { type: 'array', items: FILTER_REF },
        _not: FILTER_REF,
      },
      additionalProperties: { $ref: '#/$defs/condition' },
    },
    condition: {
      type: 'object',
      minProperties: 1,
      additionalProperties: false,
      properties: Object.fromEntries(FILTER_OPERATORS.map((op) => [op, operatorValue(op)])),
    },
  },
});
