// `svc check` on permissions: filter values that cannot be of their field's type, a top-level `roles:`
// list that makes undeclared roles problems, and warnings for roles that look like typos.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkConfigFile } from '../../src/cli/check-config.ts';
import { validateConfig } from '../../src/resources/config-loader.ts';

/** Three resources; editor and member are named under several, so a role under one stands out. */
function tasks(): Record<string, any> {
  const everything = { read: true, create: true, update: true, delete: true };
  return {
    resources: {
      projects: { fields: { name: { type: 'string' } }, permissions: { editor: everything, member: { read: true } } },
      tasks: {
        fields: {
          title: { type: 'string' },
          status: { type: 'enum', values: ['open', 'done'] },
          due_on: { type: 'date' },
          due_at: { type: 'datetime' },
          points: { type: 'integer' },
          weight: { type: 'number' },
          urgent: { type: 'boolean' },
          ref: { type: 'uuid' },
          owner: { type: 'string' },
          constructor: { type: 'integer' },
        },
        permissions: { editor: everything, member: { read: { filter: { owner: { eq: '$userId' } } } } },
      },
      notes: { fields: { body: { type: 'text' } }, permissions: { editor: everything, member: { read: true } } },
    },
  };
}

const memberRead = (c: Record<string, any>) => c.resources.tasks.permissions.member.read;
const problemsOf = (change: (c: Record<string, any>) => void) => {
  const config = tasks();
  change(config);
  return validateConfig(config).problems;
};

describe('svc check: filter values of the wrong type', () => {
  const at = 'resources.tasks.permissions.member.read.filter';
  const scenarios: { name: string; filter: object; path: string; message: RegExp }[] = [
    {
      name: 'an enum value not in values',
      filter: { status: { eq: 'finished' } },
      path: `${at}.status.eq`,
      message: /"finished" .*expected one of open, done/,
    },
    {
      name: 'an enum value not in values inside in',
      filter: { status: { in: ['open', 'finished'] } },
      path: `${at}.status.in.1`,
      message: /"finished"/,
    },
    {
      name: 'a date that does not parse',
      filter: { due_on: { gt: 'soon' } },
      path: `${at}.due_on.gt`,
      message: /"soon" .*date YYYY-MM-DD/,
    },
    { name: 'an impossible date', filter: { due_on: { lt: '2024-02-30' } }, path: `${at}.due_on.lt`, message: /date/ },
    {
      name: 'a datetime without a time zone',
      filter: { due_at: { gte: '2024-01-01 10:00' } },
      path: `${at}.due_at.gte`,
      message: /date-time/,
    },
    {
      name: 'a non-integer for an integer field',
      filter: { points: { gt: 1.5 } },
      path: `${at}.points.gt`,
      message: /expected an integer/,
    },
    {
      name: 'text for an integer field',
      filter: { points: { eq: 'many' } },
      path: `${at}.points.eq`,
      message: /expected an integer/,
    },
    {
      name: 'text for a number field',
      filter: { weight: { lt: 'heavy' } },
      path: `${at}.weight.lt`,
      message: /expected a number/,
    },
    {
      name: 'text for a boolean field',
      filter: { urgent: { eq: 'yes' } },
      path: `${at}.urgent.eq`,
      message: /true or false/,
    },
    {
      name: 'a number for a string field',
      filter: { title: { eq: 5 } },
      path: `${at}.title.eq`,
      message: /needs a string/,
    },
    { name: 'a malformed uuid', filter: { ref: { neq: 'abc' } }, path: `${at}.ref.neq`, message: /UUID/ },
    { name: 'a malformed id', filter: { id: { eq: 'x' } }, path: `${at}.id.eq`, message: /UUID/ },
    {
      name: 'a check value deep in _or and _not',
      filter: { _or: [{ owner: { eq: '$userId' } }, { _not: { status: { neq: 'closed' } } }] },
      path: `${at}._or.1._not.status.neq`,
      message: /"closed"/,
    },
    {
      name: 'a field named constructor given text',
      filter: { constructor: { eq: 'x' } },
      path: `${at}.constructor.eq`,
      message: /expected an integer/,
    },
  ];
  for (const scenario of scenarios) {
    it(`refuses ${scenario.name}, at its path`, () => {
      const problems = problemsOf((c) => (memberRead(c).filter = scenario.filter));
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assert.equal(problems[0]?.path, scenario.path);
      assert.match(problems[0]?.message ?? '', scenario.message);
    });
  }

  it('refuses a wrong value in a check as well as in a filter', () => {
    const problems = problemsOf(
      (c) => (c.resources.tasks.permissions.member.create = { check: { status: { eq: 'finished' } } }),
    );
    assert.deepEqual(
      problems.map((p) => p.path),
      ['resources.tasks.permissions.member.create.check.status.eq'],
    );
  });

  const valid: { name: string; filter: object }[] = [
    {
      name: 'values of every type',
      filter: {
        status: { in: ['open', 'done'] },
        due_on: { gt: '2024-02-29' },
        due_at: { lt: '2024-01-01T10:00:00+02:00' },
        points: { gte: -3 },
        weight: { lt: 2.5 },
        urgent: { eq: true },
        ref: { neq: '01890a5d-ac96-774b-bcce-b302099a8057' },
      },
    },
    { name: 'session variables', filter: { owner: { eq: '$userId' }, status: { neq: '$role' } } },
    {
      name: 'null, patterns and null tests',
      filter: { status: { eq: null }, title: { like: '%x%', ilike: 'A_' }, due_on: { is_null: true } },
    },
    { name: 'text for a boolean field that reads as one', filter: { urgent: { eq: 'true' } } },
    { name: 'a value below the field minimum (bounds are not types)', filter: { points: { gt: -1_000_000 } } },
  ];
  for (const scenario of valid) {
    it(`accepts ${scenario.name}`, () => {
      assert.deepEqual(
        problemsOf((c) => (memberRead(c).filter = scenario.filter)),
        [],
      );
    });
  }
});

describe('svc check: roles', () => {
  it('accepts a roles list that declares every role, the default one included', () => {
    assert.deepEqual(
      problemsOf((c) => (c.roles = ['editor', 'member', 'user', 'guest'])),
      [],
    );
  });

  it('refuses, with a roles list, a role it does not declare, at each place it is named', () => {
    const problems = problemsOf((c) => {
      c.roles = ['editor', 'user'];
      c.resources.notes.permissions.memebr = { read: true };
    });
    assert.deepEqual(
      problems.map((p) => p.path),
      [
        'resources.projects.permissions.member',
        'resources.tasks.permissions.member',
        'resources.notes.permissions.member',
        'resources.notes.permissions.memebr',
      ],
    );
    assert.match(problems[3]?.message ?? '', /role "memebr" is not declared in roles \(declared: editor, user\)/);
  });

  it('refuses, with a roles list, a default role it does not declare', () => {
    const problems = problemsOf((c) => (c.roles = ['editor', 'member']));
    assert.deepEqual(
      problems.map((p) => [p.path, p.message]),
      [['auth.defaultRole', 'role "user" is not declared in roles (declared: editor, member)']],
    );
  });

  it('refuses role names no user could be given', () => {
    const problems = problemsOf((c) => {
      c.resources.notes.permissions['bad\u0001role'] = { read: true };
      c.resources.notes.permissions[' padded'] = { read: true };
    });
    assert.deepEqual(
      problems.map((p) => p.path).sort(),
      ['resources.notes.permissions. padded', 'resources.notes.permissions.bad\u0001role'].sort(),
    );
  });

  it('refuses a roles list with duplicates or empty names', () => {
    assert.ok(problemsOf((c) => (c.roles = ['editor', 'editor', 'member', 'user'])).some((p) => p.path === 'roles'));
    assert.ok(problemsOf((c) => (c.roles = ['editor', '', 'member', 'user'])).some((p) => p.path === 'roles.1'));
  });
});

describe('svc check: warnings for roles that look like typos', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-check-roles-'));
  const check = async (config: Record<string, any>) => {
    const file = join(dir, `c-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify({ ...config, database: { url: 'sqlite::memory:' } }));
    return checkConfigFile(file, {}, dir);
  };

  it('names a role under only one resource when others are under several, with its path, and still passes', async () => {
    const config = tasks();
    config.resources.notes.permissions = { editor: { read: true }, memebr: { read: true } };
    const result = await check(config);
    assert.equal(result.ok, true);
    assert.match(result.lines[0] ?? '', /valid, 3 resources \(projects, tasks, notes\), 1 warning$/);
    assert.equal(result.lines.length, 2);
    assert.match(
      result.lines[1] ?? '',
      /^warning: resources\.notes\.permissions\.memebr: role "memebr" is named under no other resource, while editor, member are named under several: a typo\? \(did you mean "member"\?\)/,
    );
  });

  it('says nothing when every role is under several resources, or when roles are declared', async () => {
    assert.deepEqual((await check(tasks())).lines.length, 1);
    const declared = tasks();
    declared.roles = ['editor', 'member', 'user', 'auditor'];
    declared.resources.notes.permissions.auditor = { read: true };
    const result = await check(declared);
    assert.equal(result.ok, true);
    assert.equal(result.lines.length, 1, result.lines.join('\n'));
  });

  it('does not suspect the default role', async () => {
    const config = tasks();
    config.auth = { defaultRole: 'reader' };
    config.resources.notes.permissions.reader = { read: true };
    assert.equal((await check(config)).lines.length, 1);
  });
});
