// What `svc init` writes as .env.example: every environment variable svc reads, and those the starter
// config reads through ${…}, each with what it does. All are commented out, so a copy changes nothing
// until a line is chosen; an empty variable counts as unset.

export const STARTER_ENV_EXAMPLE = `# Environment variables svc reads. svc does not read this file: copy it to .env, uncomment what you
# need, and load it the way you run svc (docker --env-file .env, systemd EnvironmentFile=, or in a
# shell: set -a; . ./.env; set +a). Keep .env out of version control: it holds secrets.

# The config file (else ./svc.config.yaml in the working directory).
# SVC_CONFIG=./svc.config.yaml

# Port and address to listen on; override server.port and server.host.
# PORT=3000
# HOST=0.0.0.0

# The database; overrides database.url. sqlite:PATH or postgres://user:password@host:5432/dbname.
# DATABASE_URL=postgres://svc:secret@127.0.0.1:5432/svc

# Redis, to run several nodes on one PostgreSQL database; overrides redis.url.
# REDIS_URL=redis://127.0.0.1:6379

# The admin token for /admin/*, /metrics and the console; overrides adminToken. A long random string
# (openssl rand -hex 32). Unset: one is generated at the first start and printed once.
# SVC_ADMIN_TOKEN=

# Signs sessions, at least 32 characters (openssl rand -base64 32). Unset: generated and kept in dataDir
# with SQLite; PostgreSQL requires it, the same on every node.
# SVC_SECRET=

# Least severe log level written: trace, debug, info, warn, error or fatal. debug also prints stack traces.
# LOG_LEVEL=info

# Log lines: pretty (readable) or json (one object per line). Unset: pretty on a terminal, json otherwise.
# LOG_FORMAT=json

# SMTP server for verification emails (auth.email.smtpUrl). Unset: the links are logged.
# SMTP_URL=smtp://user:password@smtp.example.com:587

# GitHub and Google sign-in (auth.social); a provider is on when both of its values are set.
# GITHUB_CLIENT_ID=
# GITHUB_CLIENT_SECRET=
# GOOGLE_CLIENT_ID=
# GOOGLE_CLIENT_SECRET=
`;
