// What `svc init` writes as svc.config.yaml: every top-level setting with its default and a one-line
// comment, and two related resources with two roles, so that a new project starts from a file that
// `svc start` serves as it is and that shows what can be changed. A test keeps it in step with the schema.

/** Where a project that installed svc (npm install svc) has the config schema, for editors. */
export const STARTER_SCHEMA_PATH = './node_modules/svc/schema/svc.config.schema.json';

export const STARTER_CONFIG = `# yaml-language-server: $schema=${STARTER_SCHEMA_PATH}
#
# svc configuration: the service's settings and the resources it serves (docs/configuration.md in the
# svc package). Every setting shows its default; change what you need. \`svc check\` validates this file.
# \${VAR:-default} is read from the environment; PORT, HOST, DATABASE_URL, REDIS_URL and SVC_ADMIN_TOKEN
# override their settings (see .env.example).

# The config schema, so that editors complete and check this file (once svc is installed in this folder).
$schema: ${STARTER_SCHEMA_PATH}

# Where records are kept: sqlite:PATH (relative to the working directory) or postgres://user:pass@host/db.
database:
  url: "sqlite:./.svc/data.db"

# Folder for generated secrets and the default SQLite file, relative to the working directory.
dataDir: ./.svc

# The HTTP server.
server:
  port: 3000                    # 0: any free port
  host: 127.0.0.1               # this machine only; 0.0.0.0 (or HOST=0.0.0.0) for a container or server
  cors: { origins: [] }         # browser origins allowed to call the API ("*": any, without cookies)
  bodyLimitBytes: 1048576       # a larger request body is refused with 413
  requestTimeoutMs: 30000       # time a client has to send a whole request (0: no limit)
  maxConnections: 10000         # open connections at once; more are closed as they arrive
  likePatternMaxLength: 100     # longest like/ilike filter value
  likePatternMaxWildcards: 16   # most % and _ in one like/ilike filter value
  includeMaxDepth: 3            # most relationships in one include path
  includeMaxRecords: 1000       # most related records one request may include
  atomicMaxOperations: 100      # most operations in one POST /v1/operations
  filterMaxDepth: 8             # deepest _and/_or/_not nesting in a _filter
  filterMaxConditions: 100      # most conditions in one _filter
  filterMaxInValues: 1000       # most in/nin values in one _filter
  publicMetrics: false          # true: /metrics without the admin token
  console: true                 # the web console at /console and the API reference at /docs
  hookTimeoutMs: 5000           # longest a hook may run inside a write (docs/hooks.md)

# Hooks and custom routes: a JavaScript module, relative to this file (docs/hooks.md). Empty: none.
hooks: ""

# The admin token for /admin/*, /metrics and the console. Empty: generated at first start and printed once.
adminToken: ""

# Users: sign-up and sign-in under basePath, the role new users get, verification emails, social sign-in.
auth:
  basePath: /auth
  baseUrl: ""                   # public URL of the service, for links in emails (empty: http://localhost:PORT)
  defaultRole: user             # the role of users who sign up
  requireEmailVerification: false
  trustedOrigins: []            # browser origins, besides this service's own, that may sign in with cookies
  email:
    smtpUrl: "\${SMTP_URL:-}"    # empty: verification links are logged instead of sent
    from: "svc <no-reply@localhost>"
  social:                       # a provider is on only when both of its credentials are set
    github: { clientId: "\${GITHUB_CLIENT_ID:-}", clientSecret: "\${GITHUB_CLIENT_SECRET:-}" }
    google: { clientId: "\${GOOGLE_CLIENT_ID:-}", clientSecret: "\${GOOGLE_CLIENT_SECRET:-}" }
  loginThrottle: { enabled: true, maxFailuresPerAccount: 10, maxFailuresPerAddress: 50, windowMs: 900000 }
  signUpThrottle: { enabled: true, maxPerAddress: 30, windowMs: 3600000 }   # sign-up attempts per client address
  emailAndPassword: { enabled: true }           # false: only social, OIDC and passwordless sign-in; keys come from sessions
  passwordReset: { expiresIn: 3600, revokeKeys: true }   # link lifetime (s); a reset also deletes the user's API keys
  oidc: []                      # OpenID Connect providers: [{ id, issuer, clientId, clientSecret, scopes }]
  magicLink: { enabled: false, expiresIn: 300 }   # sign-in by an emailed link
  emailOtp: { enabled: false, expiresIn: 300 }    # sign-in by an emailed one-time code
  twoFactor: { enabled: false, issuer: svc }      # users may turn on TOTP two-factor
  # jwt: { issuer, audience, jwksUrl, userIdClaim: sub, roleClaim, allowedRolesClaim }   # accept another provider's JWTs

# API keys (issued by POST /token): requests per key per window in milliseconds; a key may be issued tighter.
apiKeys:
  rateLimit: { enabled: true, max: 1000, timeWindow: 60000 }

# Server-Sent Event streams (/v1/RESOURCE/stream): heartbeat, reconnection delay, replay, open streams.
stream: { heartbeatMs: 30000, retryMs: 3000, allowQueryToken: true, replayWindow: 10000, maxPerKey: 10, maxPerNode: 10000 }

# Webhook deliveries: how long a receiver may take, whether private addresses may receive, retry polling.
webhooks: { timeoutMs: 30000, allowPrivateTargets: false, pollIntervalMs: 500 }

# Redis, for several nodes on one PostgreSQL database (shared rate limits, instant events). Empty: none.
redis:
  url: ""

# How long old events and finished webhook delivery records are kept (milliseconds, rows).
retention:
  intervalMs: 60000
  batchSize: 1000
  events: { maxAgeMs: 86400000, maxCount: 1000000 }
  deliveries: { maxAgeMs: 604800000, maxCount: 1000000 }

# Idempotency-Key on POST: how long an answer is kept for retries, how long a running request holds its key.
idempotency: { ttlMs: 86400000, leaseMs: 60000 }

# Where uploaded files are kept: this folder (shared: true when every node mounts it), or driver: s3 with
# bucket, endpoint, region, accessKeyId, secretAccessKey and forcePathStyle (AWS, MinIO, R2, Backblaze, Garage).
storage: { driver: local, dir: ./.svc/files, shared: false }

# How long the signed download URL of a file attribute works (seconds).
files: { urlTtlSeconds: 300 }

# The roles users may have; every role under a resource's permissions must be one of them.
roles: [manager, user]

# What the API serves: each resource at /v1/NAME, its fields, and what each role may do with it.
resources:
  projects:
    description: Projects that tasks belong to.
    fields:
      name:        { type: string, required: true, unique: true, maxLength: 100, sortable: true }
      description: { type: text }
      archived:    { type: boolean, default: false }
    permissions:
      manager: { read: true, create: true, update: true, delete: true }
      user:    { read: { filter: { archived: { eq: false } } } }

  tasks:
    description: Work in a project; a user sees and changes the tasks assigned to them.
    fields:
      project_id:  { type: relation, resource: projects, required: true, onDelete: cascade }  # deleting a project deletes its tasks
      title:       { type: string, required: true, maxLength: 200, sortable: true }
      status:      { type: enum, values: [todo, doing, done], default: todo, sortable: true }
      due_on:      { type: date, sortable: true }
      assignee_id: { type: string }   # the user id of whoever does it
    permissions:
      manager: { read: true, create: true, update: true, delete: true }
      user:
        read:   { filter: { assignee_id: { eq: $userId } } }
        create: { fields: [project_id, title, status, due_on], preset: { assignee_id: $userId } }
        update: { fields: [title, status, due_on], filter: { assignee_id: { eq: $userId } } }
`;
