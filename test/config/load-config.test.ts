// loadConfig and loadConfigFromObject: lookup order, YAML and JSON, interpolation, environment
// overrides, local paths, errors that list every problem.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLED_CONFIG_FILE, ConfigError, findConfigFile } from '../../src/config/load-config.ts';
import { checkConfigFile } from '../../src/cli/check-config.ts';
import { FIELD_TYPE_NAMES } from '../../src/config/config-schema.ts';
import { loadConfig, loadConfigFromObject } from '../../src/resources/config-loader.ts';

const NOTES_YAML = `
server:
  port: \${NOTES_PORT:-4000}
resources:
  notes:
    fields:
      body: { type: text, required: true }
`;

let dir: string;
const file = (name: string): string => join(dir, name);

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-config-'));
  await mkdir(join(dir, 'project'));
  await mkdir(join(dir, 'configs'));
  await writeFile(file('notes.yaml'), NOTES_YAML);
  await writeFile(
    file('project/svc.config.yaml'),
    'resources:\n  local_things:\n    fields:\n      name: { type: string }\n',
  );
  await writeFile(file('from-env.yaml'), 'resources:\n  env_things:\n    fields:\n      name: { type: string }\n');
  await writeFile(file('configs/relative.yaml'), 'database: { url: "sqlite:./data/app.db" }\ndataDir: ./state\n');
  await writeFile(
    file('notes.json'),
    JSON.stringify({
      server: { port: '${NOTES_PORT:-4001}' },
      resources: { notes: { fields: { body: { type: 'text' } } } },
    }),
  );
  await writeFile(file('broken.yaml'), 'server:\n  port: 3000\n   host: x\n');
  await writeFile(file('duplicate.yaml'), 'server: {}\nserver: {}\n');
  await writeFile(
    file('many-problems.yaml'),
    `server: { port: nope }
resources:
  Posts: { fields: { title: { type: string } } }
  posts:
    fields:
      id: { type: string }
      status: { type: enum }
`,
  );
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadConfig', () => {
  it('loads the bundled example when nothing else is found', async () => {
    const config = await loadConfig({ env: {}, cwd: join(dir, 'configs') });
    assert.deepEqual(Object.keys(config.resources), ['categories', 'posts', 'comments']);
    assert.equal(config.server.port, 3000);
    assert.equal(config.adminToken, '');
    assert.deepEqual(config.auth.social.github, { clientId: '', clientSecret: '' });
    assert.equal(config.resources.posts?.enableSoftDelete, true);
    assert.equal(config.resources.comments?.fields.post_id?.onDelete, 'cascade');
  });

  it('has every one of the 15 field types in the bundled example', async () => {
    const config = await loadConfig({ file: BUNDLED_CONFIG_FILE, env: {} });
    const used = new Set(Object.values(config.resources).flatMap((r) => Object.values(r.fields).map((f) => f.type)));
    assert.deepEqual([...used].sort(), [...FIELD_TYPE_NAMES].sort());
  });

  it("keeps the bundled example's posts exactly as docs/configuration.md shows them", async () => {
    const config = await loadConfig({ file: BUNDLED_CONFIG_FILE, env: {} });
    const posts = config.resources.posts;
    assert.deepEqual(posts?.fields.status, {
      type: 'enum',
      values: ['draft', 'published'],
      default: 'draft',
      sortable: true,
    });
    assert.deepEqual(posts?.permissions?.user, {
      read: {
        fields: ['title', 'body', 'status', 'views', 'author_id', 'category_id'],
        filter: { _or: [{ status: { eq: 'published' } }, { author_id: { eq: '$userId' } }] },
      },
      create: { fields: ['title', 'body', 'status', 'category_id'], preset: { author_id: '$userId' } },
      update: { fields: ['title', 'body', 'status'], filter: { author_id: { eq: '$userId' } } },
      delete: { filter: { author_id: { eq: '$userId' } } },
    });
    assert.deepEqual(posts?.permissions?.editor, { read: true, create: true, update: true, delete: true });
  });

  it('interpolates the bundled example from the environment', async () => {
    const config = await loadConfig({
      file: BUNDLED_CONFIG_FILE,
      env: { GITHUB_CLIENT_ID: 'gh-id', GITHUB_CLIENT_SECRET: 'gh-secret', SMTP_URL: 'smtp://mail:25' },
    });
    assert.deepEqual(config.auth.social.github, { clientId: 'gh-id', clientSecret: 'gh-secret' });
    assert.equal(config.auth.email.smtpUrl, 'smtp://mail:25');
  });

  const LOOKUP: {
    name: string;
    options: () => { file?: string; env: NodeJS.ProcessEnv; cwd: string };
    resource: string;
  }[] = [
    {
      name: 'the explicit file over SVC_CONFIG and ./svc.config.yaml',
      options: () => ({
        file: file('notes.yaml'),
        env: { SVC_CONFIG: file('from-env.yaml') },
        cwd: join(dir, 'project'),
      }),
      resource: 'notes',
    },
    {
      name: 'an explicit file relative to cwd',
      options: () => ({ file: 'notes.yaml', env: {}, cwd: dir }),
      resource: 'notes',
    },
    {
      name: 'SVC_CONFIG over ./svc.config.yaml',
      options: () => ({ env: { SVC_CONFIG: file('from-env.yaml') }, cwd: join(dir, 'project') }),
      resource: 'env_things',
    },
    {
      name: './svc.config.yaml over the bundled example',
      options: () => ({ env: {}, cwd: join(dir, 'project') }),
      resource: 'local_things',
    },
    { name: 'the bundled example last', options: () => ({ env: { SVC_CONFIG: '' }, cwd: dir }), resource: 'posts' },
  ];
  for (const scenario of LOOKUP) {
    it(`finds ${scenario.name}`, async () => {
      const config = await loadConfig(scenario.options());
      assert.ok(scenario.resource in config.resources, `resources: ${Object.keys(config.resources).join(', ')}`);
    });
  }

  it('says where the config came from', async () => {
    assert.deepEqual(await findConfigFile({ env: {}, cwd: join(dir, 'project') }), {
      file: file('project/svc.config.yaml'),
      origin: 'cwd',
    });
    assert.deepEqual(await findConfigFile({ env: {}, cwd: dir }), { file: BUNDLED_CONFIG_FILE, origin: 'bundled' });
    assert.equal((await findConfigFile({ env: { SVC_CONFIG: 'x.yaml' }, cwd: dir })).origin, 'SVC_CONFIG');
  });

  it('reads JSON files', async () => {
    const config = await loadConfig({ file: file('notes.json'), env: {} });
    assert.equal(config.server.port, 4001);
    assert.deepEqual(Object.keys(config.resources), ['notes']);
  });

  it('turns an interpolated number into a number, with the default or from the environment', async () => {
    assert.equal((await loadConfig({ file: file('notes.yaml'), env: {} })).server.port, 4000);
    assert.equal((await loadConfig({ file: file('notes.yaml'), env: { NOTES_PORT: '4100' } })).server.port, 4100);
  });

  it('resolves relative sqlite paths and dataDir against cwd, not the config file', async () => {
    const cwd = join(dir, 'project');
    const config = await loadConfig({ file: file('configs/relative.yaml'), env: {}, cwd });
    assert.equal(config.database.url, `sqlite:${join(cwd, 'data/app.db')}`);
    assert.equal(config.dataDir, join(cwd, 'state'));
  });

  it('throws a ConfigError for a missing file', async () => {
    await assert.rejects(loadConfig({ file: file('absent.yaml'), env: {} }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.problems[0]?.message ?? '', /cannot read .*absent\.yaml: no such file/);
      return true;
    });
  });

  it('throws a ConfigError naming the line of a YAML syntax error', async () => {
    await assert.rejects(loadConfig({ file: file('broken.yaml'), env: {} }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.problems[0]?.message ?? '', /^syntax error: .* at line 2, column \d+$/);
      return true;
    });
  });

  it('refuses duplicate keys', async () => {
    await assert.rejects(
      loadConfig({ file: file('duplicate.yaml'), env: {} }),
      /syntax error: .*[Mm]ap keys must be unique/,
    );
  });

  it('lists every problem of the file in the error, one per line as path: message', async () => {
    await assert.rejects(loadConfig({ file: file('many-problems.yaml'), env: {} }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.file, file('many-problems.yaml'));
      const lines = error.message.split('\n');
      assert.match(lines[0] ?? '', /^invalid configuration in .*many-problems\.yaml \(4 problems\):$/);
      assert.deepEqual(
        lines
          .slice(1)
          .map((l) => l.split(':')[0])
          .sort(),
        ['resources.Posts', 'resources.posts.fields.id', 'resources.posts.fields.status.values', 'server.port'],
      );
      assert.deepEqual(
        lines.slice(1),
        error.problems.map((p) => `${p.path}: ${p.message}`),
      );
      return true;
    });
  });
});

describe('loadConfigFromObject', () => {
  const notes = { resources: { notes: { fields: { body: { type: 'text' } } } } };

  it("fills every setting's documented default", () => {
    const config = loadConfigFromObject({}, {}, { cwd: '/srv/app' });
    assert.deepEqual(
      { ...config },
      {
        database: { url: 'sqlite:/srv/app/.svc/data.db' },
        server: {
          port: 3000,
          host: '127.0.0.1',
          cors: { origins: [] },
          bodyLimitBytes: 1048576,
          publicMetrics: false,
          requestTimeoutMs: 30000,
          maxConnections: 10000,
          likePatternMaxLength: 100,
          likePatternMaxWildcards: 16,
          includeMaxDepth: 3,
          includeMaxRecords: 1000,
          atomicMaxOperations: 100,
          filterMaxDepth: 8,
          filterMaxConditions: 100,
          filterMaxInValues: 1000,
          console: true,
          hookTimeoutMs: 5000,
        },
        auth: {
          basePath: '/auth',
          requireEmailVerification: false,
          defaultRole: 'user',
          social: {},
          oidc: [],
          magicLink: { enabled: false, expiresIn: 300 },
          emailOtp: { enabled: false, expiresIn: 300 },
          twoFactor: { enabled: false },
          email: { from: 'svc <no-reply@localhost>' },
          trustedOrigins: [],
          loginThrottle: { enabled: true, maxFailuresPerAccount: 10, maxFailuresPerAddress: 50, windowMs: 900000 },
          signUpThrottle: { enabled: true, maxPerAddress: 30, windowMs: 3600000 },
          emailAndPassword: { enabled: true },
          passwordReset: { expiresIn: 3600, revokeKeys: true },
        },
        apiKeys: { rateLimit: { enabled: true, max: 1000, timeWindow: 60000 } },
        stream: { heartbeatMs: 30000, retryMs: 3000, allowQueryToken: true, replayWindow: 10000 },
        webhooks: { timeoutMs: 30000, allowPrivateTargets: false, pollIntervalMs: 500 },
        retention: {
          intervalMs: 60000,
          batchSize: 1000,
          events: { maxAgeMs: 86400000, maxCount: 1000000 },
          deliveries: { maxAgeMs: 604800000, maxCount: 1000000 },
        },
        idempotency: { ttlMs: 86400000, leaseMs: 60000 },
        storage: { driver: 'local' },
        files: { urlTtlSeconds: 300 },
        dataDir: '/srv/app/.svc',
        resources: {},
      },
    );
  });

  it('does not read process.env unless given it', () => {
    process.env.SVC_CONFIG_TEST_PORT = '5000';
    try {
      assert.equal(loadConfigFromObject({ server: { port: '${SVC_CONFIG_TEST_PORT:-3001}' } }).server.port, 3001);
      assert.equal(
        loadConfigFromObject({ server: { port: '${SVC_CONFIG_TEST_PORT:-3001}' } }, process.env).server.port,
        5000,
      );
    } finally {
      delete process.env.SVC_CONFIG_TEST_PORT;
    }
  });

  const OVERRIDES: {
    variable: string;
    value: string;
    read: (c: ReturnType<typeof loadConfigFromObject>) => unknown;
    expected: unknown;
  }[] = [
    { variable: 'PORT', value: '8080', read: (c) => c.server.port, expected: 8080 },
    { variable: 'HOST', value: '127.0.0.1', read: (c) => c.server.host, expected: '127.0.0.1' },
    {
      variable: 'DATABASE_URL',
      value: 'postgres://u:p@db:5432/app',
      read: (c) => c.database.url,
      expected: 'postgres://u:p@db:5432/app',
    },
    { variable: 'DATABASE_URL', value: 'sqlite::memory:', read: (c) => c.database.url, expected: 'sqlite::memory:' },
    { variable: 'REDIS_URL', value: 'redis://cache:6379', read: (c) => c.redis?.url, expected: 'redis://cache:6379' },
    { variable: 'SVC_ADMIN_TOKEN', value: 'secret-token', read: (c) => c.adminToken, expected: 'secret-token' },
  ];
  for (const scenario of OVERRIDES) {
    it(`lets ${scenario.variable}=${scenario.value} override the file`, () => {
      const raw = {
        ...notes,
        server: { port: 3000, host: 'localhost' },
        database: { url: 'sqlite:./x.db' },
        adminToken: 'from-file',
        redis: { url: 'redis://file:6379' },
      };
      assert.equal(
        scenario.read(loadConfigFromObject(raw, { [scenario.variable]: scenario.value })),
        scenario.expected,
      );
    });
  }

  it('applies overrides over interpolated values', () => {
    const config = loadConfigFromObject({ server: { port: '${APP_PORT:-3000}' } }, { APP_PORT: '4000', PORT: '5000' });
    assert.equal(config.server.port, 5000);
  });

  it('ignores empty override variables', () => {
    const config = loadConfigFromObject(
      { server: { port: 3100 }, adminToken: 'kept' },
      { PORT: '', SVC_ADMIN_TOKEN: '' },
    );
    assert.equal(config.server.port, 3100);
    assert.equal(config.adminToken, 'kept');
  });

  it('names the variable when an override is invalid', () => {
    assert.throws(
      () => loadConfigFromObject({}, { PORT: 'eighty' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems, [
          { path: 'server.port', message: 'must be integer (from the environment variable PORT)' },
        ]);
        return true;
      },
    );
  });

  it('reads interpolated booleans as booleans', () => {
    const config = loadConfigFromObject(
      { webhooks: { allowPrivateTargets: '${PRIVATE:-false}' }, stream: { allowQueryToken: '${QT}' } },
      { QT: 'false' },
    );
    assert.equal(config.webhooks.allowPrivateTargets, false);
    assert.equal(config.stream.allowQueryToken, false);
  });

  it('keeps interpolated text that looks numeric as text where the schema wants text', () => {
    const config = loadConfigFromObject({ adminToken: '${TOKEN}' }, { TOKEN: '12345' });
    assert.equal(config.adminToken, '12345');
  });

  it('leaves session variables in filters and presets untouched', () => {
    const config = loadConfigFromObject({
      resources: {
        notes: {
          fields: { owner: { type: 'string' } },
          permissions: {
            user: { read: { filter: { owner: { eq: '$userId' } } }, create: { preset: { owner: '$userId' } } },
          },
        },
      },
    });
    assert.deepEqual(config.resources.notes?.permissions?.user?.read, { filter: { owner: { eq: '$userId' } } });
    assert.deepEqual(config.resources.notes?.permissions?.user?.create, { preset: { owner: '$userId' } });
  });

  it('reports an unset variable once, for that reason', () => {
    assert.throws(
      () => loadConfigFromObject({ database: { url: '${DB_URL}' } }, {}),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(
          error.problems.map((p) => p.path),
          ['database.url'],
        );
        assert.match(error.problems[0]?.message ?? '', /DB_URL is not set/);
        return true;
      },
    );
  });

  it('keeps sqlite::memory:, absolute sqlite paths and postgres URLs as they are', () => {
    for (const url of ['sqlite::memory:', 'sqlite:/var/lib/svc.db', 'postgres://localhost/app']) {
      assert.equal(loadConfigFromObject({ database: { url } }, {}, { cwd: '/srv' }).database.url, url);
    }
  });

  it('returns a deep-frozen config', () => {
    const config = loadConfigFromObject(notes);
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.database));
    assert.ok(Object.isFrozen(config.resources.notes?.fields.body));
    assert.throws(() => {
      (config as { dataDir: string }).dataDir = '/tmp';
    }, TypeError);
  });
});

describe('checkConfigFile', () => {
  it('says the bundled example is valid', async () => {
    const result = await checkConfigFile(undefined, {}, dir);
    assert.equal(result.ok, true);
    assert.deepEqual(result.lines, [
      `${BUNDLED_CONFIG_FILE} (bundled example): valid, 3 resources (categories, posts, comments)`,
    ]);
  });

  it('lists every problem with its path', async () => {
    const result = await checkConfigFile(file('many-problems.yaml'), {}, dir);
    assert.equal(result.ok, false);
    assert.equal(result.lines[0], `${file('many-problems.yaml')}: 4 problems`);
    assert.ok(
      result.lines.includes('resources.posts.fields.status.values: enum fields need a non-empty values list'),
      result.lines.join('\n'),
    );
    assert.equal(result.lines.length, 5);
  });

  it('refuses a resource named stream, which GET /v1/stream (several resources at once) would shadow', async () => {
    await writeFile(file('stream-resource.yaml'), 'resources:\n  stream:\n    fields:\n      name: { type: string }\n');
    const result = await checkConfigFile(file('stream-resource.yaml'), {}, dir);
    assert.equal(result.ok, false);
    assert.ok(
      result.lines.some((line) => /^resources\.stream: .*\/v1\/stream is svc's own endpoint/.test(line)),
      result.lines.join('\n'),
    );
  });

  it('reports a file it cannot read', async () => {
    const result = await checkConfigFile('absent.yaml', {}, dir);
    assert.equal(result.ok, false);
    assert.match(result.lines[1] ?? '', /cannot read .*absent\.yaml: no such file/);
  });
});
