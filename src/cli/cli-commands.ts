// The commands of `svc`, each with the options it accepts and its help text. One table, so that
// `svc help`, `svc COMMAND --help` and option checking cannot disagree.
import type { ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface CliCommand {
  /** As typed: `users create` is two words. */
  readonly name: string;
  readonly synopsis: string;
  readonly summary: string;
  readonly options: Options;
  /** The one word it takes besides options (`DIR`), if any. */
  readonly argument?: string;
  /** One line per option for the help text. */
  readonly optionHelp: readonly [string, string][];
}

const CONFIG: Options = { config: { type: 'string' } };
const CONFIG_HELP: [string, string] = [
  '--config FILE',
  'the config file (else SVC_CONFIG, ./svc.config.yaml, the bundled example)',
];
const HELP: Options = { help: { type: 'boolean', short: 'h' } };

export const COMMANDS: readonly CliCommand[] = [
  {
    name: 'init',
    synopsis: 'svc init [DIR]',
    summary: 'write a starter svc.config.yaml and .env.example into DIR (default: here), never over an existing file',
    options: { ...HELP },
    argument: 'DIR',
    optionHelp: [
      [
        'DIR',
        'the project folder, created if missing; the config has two related resources, two roles and every setting with its default',
      ],
    ],
  },
  {
    name: 'start',
    synopsis: 'svc start [--config FILE] [--port N] [--host H] [--allow-destructive]',
    summary: 'apply the config to the database and serve the API',
    options: {
      ...CONFIG,
      ...HELP,
      port: { type: 'string' },
      host: { type: 'string' },
      'allow-destructive': { type: 'boolean' },
    },
    optionHelp: [
      CONFIG_HELP,
      ['--port N', 'port to listen on (else PORT, server.port)'],
      ['--host H', 'address to listen on (else HOST, server.host)'],
      ['--allow-destructive', 'apply schema changes that lose data (see svc plan)'],
    ],
  },
  {
    name: 'plan',
    synopsis: 'svc plan [--config FILE]',
    summary: 'print what svc start would change in the database; exit 1 if a change is destructive',
    options: { ...CONFIG, ...HELP },
    optionHelp: [CONFIG_HELP],
  },
  {
    name: 'check',
    synopsis: 'svc check [--config FILE]',
    summary: 'validate the config and print every problem with its path',
    options: { ...CONFIG, ...HELP },
    optionHelp: [CONFIG_HELP],
  },
  {
    name: 'check-storage',
    synopsis: 'svc check-storage [--config FILE] [--repair] [--older-than SECONDS]',
    summary:
      'compare file storage with the records: orphaned objects, uploads not moved into place, missing files; exit 1 if any',
    options: { ...CONFIG, ...HELP, repair: { type: 'boolean' }, 'older-than': { type: 'string' } },
    optionHelp: [
      CONFIG_HELP,
      ['--repair', 'remove the orphans and move committed uploads into place (missing files stay reported)'],
      [
        '--older-than SECONDS',
        'only objects at least this old count as orphans (default 3600: uploads in flight are not)',
      ],
    ],
  },
  {
    name: 'openapi',
    synopsis: 'svc openapi [--config FILE] [--yaml]',
    summary: 'print the OpenAPI document',
    options: { ...CONFIG, ...HELP, yaml: { type: 'boolean' } },
    optionHelp: [CONFIG_HELP, ['--yaml', 'YAML instead of JSON']],
  },
  {
    name: 'types',
    synopsis: 'svc types [--config FILE]',
    summary: 'print the TypeScript declaration of the resources for svc/client (npx svc types > svc-types.d.ts)',
    options: { ...CONFIG, ...HELP },
    optionHelp: [CONFIG_HELP],
  },
  {
    name: 'users create',
    synopsis:
      'svc users create --email E [--password-stdin] [--role R] [--allowed-roles a,b] [--verified] [--config FILE]',
    summary: 'create a user; the password is asked for, or read from standard input',
    options: {
      ...CONFIG,
      ...HELP,
      email: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      role: { type: 'string' },
      'allowed-roles': { type: 'string' },
      verified: { type: 'boolean' },
    },
    optionHelp: [
      ['--email E', "the user's email"],
      ['--password-stdin', 'read the password from standard input (without it, a terminal asks for it)'],
      [
        '--password P',
        'the password on the command line: visible to other users of the machine; prefer --password-stdin',
      ],
      ['--role R', 'the primary role (else auth.defaultRole); it must be a role the config defines'],
      ['--allowed-roles a,b', 'roles the user may switch to with X-Service-Role'],
      ['--verified', 'mark the email as verified'],
      CONFIG_HELP,
    ],
  },
  {
    name: 'import',
    synopsis: 'svc import FILE --resource R [--url U] [--batch N] [--format ndjson|csv] [--report FILE] [--skip N]',
    summary:
      'load NDJSON or CSV rows into a running svc through POST /v1/operations, in batches, with a report of refused rows',
    options: {
      ...HELP,
      resource: { type: 'string' },
      url: { type: 'string' },
      key: { type: 'string' },
      batch: { type: 'string' },
      format: { type: 'string' },
      report: { type: 'string' },
      skip: { type: 'string' },
    },
    argument: 'FILE',
    optionHelp: [
      [
        'FILE',
        'one JSON object per line (a report line {line, row, errors} counts as its row), or CSV with a header row',
      ],
      ['--resource R', 'the resource the rows are records of'],
      ['--url U', `the service (else SVC_URL, else http://127.0.0.1:3000); the API key comes from SVC_API_KEY`],
      ['--key K', 'the API key on the command line: visible to other users of the machine; prefer SVC_API_KEY'],
      ['--batch N', 'rows per request (default 100, at most server.atomicMaxOperations)'],
      ['--format F', 'ndjson or csv (else from the file name: .csv is CSV)'],
      ['--report FILE', 'where refused rows go with their errors, appended (default FILE.refused.ndjson)'],
      ['--skip N', 'skip the first N data rows: resume after the "done through data row N" of an interrupted run'],
    ],
  },
  {
    name: 'admin-token',
    synopsis: 'svc admin-token [--rotate] [--config FILE]',
    summary: 'say how the admin token is configured; --rotate issues a new stored one and prints it once',
    options: { ...CONFIG, ...HELP, rotate: { type: 'boolean' } },
    optionHelp: [['--rotate', 'issue a new stored admin token; running servers switch to it'], CONFIG_HELP],
  },
];

export function findCommand(words: readonly string[]): { command: CliCommand; rest: string[] } | undefined {
  for (const command of COMMANDS) {
    const parts = command.name.split(' ');
    if (parts.every((part, i) => words[i] === part)) return { command, rest: words.slice(parts.length) };
  }
  return undefined;
}

export function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Usage: svc COMMAND [OPTIONS]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'svc help COMMAND (or svc COMMAND --help) describes a command; svc --version prints the version.',
  ].join('\n');
}

export function commandHelp(command: CliCommand): string {
  const width = Math.max(...command.optionHelp.map(([flag]) => flag.length));
  return [
    `Usage: ${command.synopsis}`,
    '',
    `${command.summary[0]!.toUpperCase()}${command.summary.slice(1)}.`,
    '',
    'Options:',
    ...command.optionHelp.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`),
  ].join('\n');
}
