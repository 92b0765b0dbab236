// How svc writes its log (docs/configuration.md, LOG_FORMAT): human-readable lines for a person at a
// terminal, one JSON object per line for everything else (log collectors, files, pipes). A pure choice,
// so that it can be tested without a pseudo-terminal.

export type LogFormat = 'json' | 'pretty';

const FORMATS: readonly LogFormat[] = ['json', 'pretty'];

/** LOG_FORMAT decides when set (json even on a terminal, pretty even into a pipe); otherwise the terminal does. */
export function chooseLogFormat(stdoutIsTTY: boolean, env: { LOG_FORMAT?: string | undefined }): LogFormat {
  const asked = env.LOG_FORMAT?.trim().toLowerCase() ?? '';
  if (asked === '') return stdoutIsTTY ? 'pretty' : 'json';
  if ((FORMATS as readonly string[]).includes(asked)) return asked as LogFormat;
  throw new Error(
    `LOG_FORMAT must be json or pretty (or unset: pretty on a terminal, json otherwise), got "${env.LOG_FORMAT}"`,
  );
}
